import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Wiring you can read in one place (issue 42): a lower area exposes a seam (`export function
 * registerX`) for what a higher one answers, and only server/compose/ fills seams, in the
 * functions each entry point calls. A `registerX(` call anywhere else in the product's code
 * (server/, app/, scripts/, inngest/, db/) is a module filling a seam when it is imported, the
 * pattern this replaced. Tests may replace seams; they are not scanned.
 */

const root = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['server', 'app', 'scripts', 'inngest', 'db'];
/** Not seams: the executor's loopback transport, which scripts/start.ts points at its ingress. */
const NOT_SEAMS = new Set(['registerLocal']);

function files(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : files(rel);
    return /\.(ts|tsx)$/.test(e.name) ? [rel] : [];
  });
}

const sources = SOURCES.flatMap(files).map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));

/** Every seam the product's code exposes. */
const seams = new Set(sources.flatMap(({ text }) => [...text.matchAll(/export function (register[A-Z]\w*)\s*\(/g)].map((m) => m[1]!)));

/** `file: name` for each call of a seam outside server/compose/. */
function fillsOutsideCompose(list: { file: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { file, text } of list) {
    if (file.startsWith(`server${path.sep}compose${path.sep}`)) continue;
    // Calls, not the definition (`function registerX(`) nor a mention in a comment.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const m of code.matchAll(/(?<!function )\b(register[A-Z]\w*)\s*\(/g)) {
      if (seams.has(m[1]!) && !NOT_SEAMS.has(m[1]!)) found.push(`${file}: ${m[1]}`);
    }
  }
  return found;
}

describe('composition', () => {
  it('finds the seams (the scan reads the code it is meant to)', () => {
    expect(seams.size).toBeGreaterThan(15);
    for (const name of ['registerRunDispatcher', 'registerPhoneCodeSender', 'registerNoticeHandover']) expect(seams).toContain(name);
  });

  it('fills seams only in server/compose/', () => {
    expect(fillsOutsideCompose(sources)).toEqual([]);
  });

  it('would see a module filling a seam when it is imported', () => {
    const planted = { file: path.join('server', 'messaging', 'planted.ts'), text: "import { registerPhoneCodeSender } from '@/server/identifiers/verification';\nregisterPhoneCodeSender(sender);\n" };
    expect(fillsOutsideCompose([planted])).toEqual([`${planted.file}: registerPhoneCodeSender`]);
  });

  it('is what every serving entry point calls', () => {
    for (const [file, call] of [
      ['scripts/start.ts', 'composeRuntime()'],
      ['server/route-handlers.ts', 'composeRuntime()'],
      ['server/trpc/handler.ts', 'composeRuntime()'],
      ['server/trpc/chat-stream.ts', 'composeRuntime()'],
    ] as const) {
      expect(readFileSync(path.join(root, file), 'utf8'), file).toContain(call);
    }
  });
});
