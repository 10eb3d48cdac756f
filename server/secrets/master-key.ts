import { createHmac, randomBytes, scryptSync } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The key-encryption key that wraps every secret Steward keeps in Postgres. It never lives in
 * the database, so a dump (or a read through an injection) yields only ciphertext:
 * - STEWARD_MASTER_KEY: 32 bytes in base64 (`openssl rand -base64 32`), or a passphrase of at
 *   least 32 characters stretched with scrypt. Set the same value on every instance.
 * - otherwise `<STEWARD_DATA_DIR>/master.key` (default `.data/master.key`), created with mode 0600
 *   on first use, which keeps `npm start` zero-setup on one machine.
 */
export type MasterKey = { key: Buffer; id: string; source: string };

const cache = new Map<string, Promise<MasterKey>>();

export const masterKeyFile = () => path.resolve(/*turbopackIgnore: true*/ process.env.STEWARD_DATA_DIR ?? '.data', 'master.key');

export function masterKey(): Promise<MasterKey> {
  const configured = process.env.STEWARD_MASTER_KEY;
  // Keyed by where the key comes from, so a changed configuration is read afresh.
  const source = configured ? `STEWARD_MASTER_KEY` : masterKeyFile();
  const cacheKey = configured ? `env:${configured}` : `file:${source}`;
  let pending = cache.get(cacheKey);
  if (!pending) {
    pending = (configured ? Promise.resolve(fromPassphraseOrBase64(configured)) : fromFile(source)).then((key) => ({ key, id: keyId(key), source }));
    pending.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, pending);
  }
  return pending;
}

/** Names the key in each wrapped value, so a value wrapped under another key is recognised as such. */
const keyId = (key: Buffer) => createHmac('sha256', key).update('steward master key id').digest('hex').slice(0, 16);

const BASE64_32 = /^[A-Za-z0-9+/]{43}=$|^[A-Za-z0-9_-]{43}$/;

function fromPassphraseOrBase64(value: string): Buffer {
  const trimmed = value.trim();
  if (BASE64_32.test(trimmed)) return Buffer.from(trimmed, 'base64');
  if (trimmed.length < 32) {
    throw new Error('STEWARD_MASTER_KEY must be 32 bytes in base64 (openssl rand -base64 32) or a passphrase of at least 32 characters');
  }
  return scryptSync(trimmed, 'steward master key', 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
}

async function fromFile(file: string): Promise<Buffer> {
  try {
    return await readKeyFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  // The file's own mode (0600) protects the key. The folder is the data folder the embedded
  // PostgreSQL also lives in, and its server runs as another user when Steward runs as root:
  // a 0700 folder would lock it out of its own data.
  await mkdir(path.dirname(file), { recursive: true });
  // Written aside and linked into place: a second process starting at the same moment either
  // wins the link or reads the complete file, never half of it.
  const aside = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(aside, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await chmod(aside, 0o600);
    await link(aside, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await unlink(aside).catch(() => {});
  }
  return readKeyFile(file);
}

async function readKeyFile(file: string): Promise<Buffer> {
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} must hold 32 bytes in base64; restore the original file (the secrets in the database are wrapped with it)`);
  // Anyone else who can read the file can open every stored secret.
  if ((await stat(file)).mode & 0o077) await chmod(file, 0o600);
  return key;
}
