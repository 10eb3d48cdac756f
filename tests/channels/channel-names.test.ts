import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { channelNames } from '@/db/schema/channel-names';

/*
 * Issue 41: the channel names are declared once, in db/schema/channel-names.ts. Any other array
 * literal or union type that spells out two or more channel names is a second list that will
 * drift (eight lists disagreed before); it must be built from the lists there (spreads) or
 * narrowed from their types instead.
 */

const root = path.resolve(__dirname, '../..');
const DECLARED_IN = path.join('db', 'schema', 'channel-names.ts');
const FOLDERS = ['server', 'db/schema', 'app', 'inngest', 'scripts'];
/** The channel names, and the chat platforms spec 1 names that have no adapter yet. */
const NAMES = new Set<string>([...channelNames, 'rcs', 'discord']);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'migrations' ? [] : sourceFiles(rel);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

const named = (texts: string[]) => texts.filter((t) => NAMES.has(t));

/** Every array literal and union type in a file that spells out two or more channel names. */
export function handWrittenLists(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    let names: string[] = [];
    if (ts.isArrayLiteralExpression(node)) names = named(node.elements.filter(ts.isStringLiteralLike).map((e) => e.text));
    else if (ts.isUnionTypeNode(node))
      names = named(node.types.flatMap((t) => (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? [t.literal.text] : [])));
    if (names.length >= 2) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1} ${names.join(', ')}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('channel names', () => {
  it('are declared once: no other file spells out a list of them', () => {
    const files = FOLDERS.flatMap(sourceFiles).filter((f) => f !== DECLARED_IN);
    expect(files.length).toBeGreaterThan(100);
    const lists = files.flatMap((f) => handWrittenLists(f, readFileSync(path.join(root, f), 'utf8')));
    expect(lists, 'build these from db/schema/channel-names.ts').toEqual([]);
  });

  it('the check sees a hand-written list, as an array or as a union, and lets a built one pass', () => {
    expect(handWrittenLists('a.ts', "const A = ['sms', 'whatsapp'] as const;")).toHaveLength(1);
    expect(handWrittenLists('a.ts', "type K = 'slack' | 'teams' | 'x';")).toHaveLength(1);
    expect(handWrittenLists('a.tsx', "const L = () => <div>{['email', 'telegram'].join()}</div>;")).toHaveLength(1);
    expect(handWrittenLists('a.ts', "const B = ['email', ...textChannels]; type P = 'email' | 'phone';")).toEqual([]);
  });
});
