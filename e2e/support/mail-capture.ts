import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startMailCapture } from '../../server/mail/capture';

/** The loopback SMTP capture, writing each message Steward sends to `dir` as JSON for the specs to read. */
export async function startMailCaptureToDir(dir: string) {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  return startMailCapture((m) => writeFileSync(path.join(dir, `${Date.now()}-${++n}.json`), JSON.stringify(m)));
}
