import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '@/db/client';
import { appSecrets } from '@/db/schema';
import { signingSecret } from '@/server/files/signing';
import { masterKeyFile } from '@/server/secrets/master-key';
import { sessionSecret } from '@/server/sign-in/session';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server';

const app = useTestServer();

/** Steward's behaviour depends on these; each test restores them. */
const saved = { STEWARD_MASTER_KEY: process.env.STEWARD_MASTER_KEY, STEWARD_DATA_DIR: process.env.STEWARD_DATA_DIR, NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET, STEWARD_SIGNING_SECRET: process.env.STEWARD_SIGNING_SECRET };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
delete process.env.NEXTAUTH_SECRET;
delete process.env.STEWARD_SIGNING_SECRET;

/** An upload through a signed URL, end to end: the URL-signing secret is in use. */
async function uploadWorks(server: TestServer) {
  const acct = await newAccount(server);
  const u = await newUser(server, acct);
  const key = await userKey(server, acct, u.id);
  const up = (await call(server, '/drive-files/upload', { key, body: { name: 'a.txt', size: 2 } })).body;
  const put = await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': up.contentType }, body: 'hi' });
  return put.status === 200 && (await call(server, `/drive-files/${up.fileId}/confirm`, { key, body: { size: 2 } })).status === 200;
}

const rowOf = async (server: TestServer, name: string) => (await server.database.db.select().from(appSecrets).where(eq(appSecrets.name, name)))[0]?.value;

/** A second handle on the same database: nothing cached, every secret read from its row. */
async function freshHandle(server: TestServer) {
  return connect(server.database.pool.options.connectionString as string);
}

describe('secrets at rest', () => {
  it('are wrapped with a master key kept outside the database, in <STEWARD_DATA_DIR>/master.key, mode 0600', async () => {
    delete process.env.STEWARD_MASTER_KEY;
    expect(await uploadWorks(app())).toBe(true);
    // tests/global-setup.ts points the data folder of a run at a throwaway one, never the checkout's.
    expect(process.env.STEWARD_DATA_DIR).toBeTruthy();
    const file = masterKeyFile();
    expect(file).toBe(path.resolve(process.env.STEWARD_DATA_DIR!, 'master.key'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const master = readFileSync(file, 'utf8').trim();
    expect(Buffer.from(master, 'base64')).toHaveLength(32);

    const signing = await signingSecret(app().database.db);
    const stored = await rowOf(app(), 'url-signing');
    expect(stored).toMatch(/^mk1:/);
    expect(stored).not.toContain(signing);
    const all = (await app().database.pool.query('SELECT name, value FROM app_secrets')).rows as Array<{ name: string; value: string }>;
    for (const row of all) {
      expect(row.value).not.toContain(master);
      if (row.name !== 'heartbeat') expect(row.value, row.name).toMatch(/^mk1:/);
    }
  });

  it('written in clear by an earlier version, keep working and are wrapped on first use', async () => {
    delete process.env.STEWARD_MASTER_KEY;
    const server = await startTestServer();
    try {
      const legacySigning = 'a'.repeat(64);
      const legacySession = 'legacy-session-secret-0123456789abcdef';
      await server.database.db.insert(appSecrets).values([
        { name: 'url-signing', value: legacySigning },
        { name: 'portal-session-secret', value: legacySession },
      ]);
      expect(await uploadWorks(server)).toBe(true);
      // The same secret as before the upgrade (URLs and sessions made earlier stay valid), no longer in clear.
      expect(await signingSecret(server.database.db)).toBe(legacySigning);
      expect(await sessionSecret(server.database.db)).toBe(legacySession);
      expect(await rowOf(server, 'url-signing')).toMatch(/^mk1:/);
      expect(await rowOf(server, 'url-signing')).not.toContain(legacySigning);
      expect(await rowOf(server, 'portal-session-secret')).not.toContain(legacySession);
      const other = await freshHandle(server);
      try {
        expect(await signingSecret(other.db)).toBe(legacySigning);
        expect(await sessionSecret(other.db)).toBe(legacySession);
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  });

  it('STEWARD_MASTER_KEY replaces the key file; a secret never opens under another key, nor moved to another name, and is never replaced', async () => {
    const emptyDir = mkdtempSync(path.join(os.tmpdir(), 'steward-no-key-'));
    process.env.STEWARD_DATA_DIR = emptyDir;
    process.env.STEWARD_MASTER_KEY = 'a passphrase of at least thirty-two characters';
    const server = await startTestServer();
    try {
      expect(await uploadWorks(server)).toBe(true);
      expect(readdirSync(emptyDir)).toEqual([]);
      const signing = await signingSecret(server.database.db);
      const wrapped = await rowOf(server, 'url-signing');

      // Another instance with the same passphrase opens it.
      const same = await freshHandle(server);
      try {
        expect(await signingSecret(same.db)).toBe(signing);
      } finally {
        await same.close();
      }

      // With another key (base64 form), it is refused with a clear error, and the row is left as it was.
      process.env.STEWARD_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
      const other = await freshHandle(server);
      try {
        await expect(signingSecret(other.db)).rejects.toThrow(/another master key/);
      } finally {
        await other.close();
      }
      expect(await rowOf(server, 'url-signing')).toBe(wrapped);

      // The wrapped value copied under another name does not open there.
      process.env.STEWARD_MASTER_KEY = 'a passphrase of at least thirty-two characters';
      await server.database.db.insert(appSecrets).values({ name: 'portal-session-secret', value: wrapped! }).onConflictDoUpdate({ target: appSecrets.name, set: { value: wrapped! } });
      const moved = await freshHandle(server);
      try {
        await expect(sessionSecret(moved.db)).rejects.toThrow(/integrity/);
      } finally {
        await moved.close();
      }

      process.env.STEWARD_MASTER_KEY = 'too short';
      const weak = await freshHandle(server);
      try {
        await expect(signingSecret(weak.db)).rejects.toThrow(/STEWARD_MASTER_KEY must be/);
      } finally {
        await weak.close();
      }
    } finally {
      await server.close();
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});
