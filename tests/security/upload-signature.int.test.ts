import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { localStorage, useFileStorage } from '@/server/files/storage';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/**
 * The signed upload URL is the only credential for PUTting bytes: its signature must cover
 * both the expiry and the file, so neither can be changed on a URL someone was given.
 */
const app = useTestServer();
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-upload-sig-')))));

async function uploader() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const upload = async (name = 'a.txt') => {
    const res = await call(app(), '/drive-files/upload', { key, body: { name, size: 3, mimeType: 'text/plain' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { fileId: res.body.fileId as string, url: onTestServer(res.body.url) };
  };
  return { key, upload };
}

/** The URL's origin is the deployment's public one; its path and query are what carry the signature. */
const onTestServer = (signed: string) => {
  const u = new URL(signed);
  return new URL(u.pathname + u.search, app().baseUrl).toString();
};
const put = (url: string) => fetch(url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'abc' });
const statusOf = async (key: string, fileId: string) => (await call(app(), `/drive-files/${fileId}`, { key })).body.driveFile.status;

describe('signed upload URLs', () => {
  it('a URL whose expiry was pushed later is refused, and the file takes no bytes', async () => {
    const { key, upload } = await uploader();
    const up = await upload();
    const url = new URL(up.url);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires).toBeGreaterThan(Date.now() / 1000);
    for (const later of [expires + 1, expires + 86_400 * 365]) {
      url.searchParams.set('expires', String(later));
      expect((await put(url.toString())).status).toBe(403);
    }
    expect(await statusOf(key, up.fileId)).toBe('pending');
    // The untouched URL still works: the refusal was about the change.
    expect((await put(up.url)).status).toBe(200);
  });

  it('a signature moved onto another file (the same user’s, or another account’s) is refused', async () => {
    const a = await uploader();
    const mine = await a.upload('mine.txt');
    const alsoMine = await a.upload('also-mine.txt');
    const b = await uploader();
    const theirs = await b.upload('theirs.txt');

    for (const target of [alsoMine.fileId, theirs.fileId]) {
      const forged = mine.url.replace(`/drive-files/${mine.fileId}/content`, `/drive-files/${target}/content`);
      expect(forged).not.toBe(mine.url);
      expect((await put(forged)).status).toBe(403);
    }
    expect(await statusOf(a.key, alsoMine.fileId)).toBe('pending');
    expect(await statusOf(b.key, theirs.fileId)).toBe('pending');
    // Each file still takes its own URL.
    expect((await put(alsoMine.url)).status).toBe(200);
    expect((await put(theirs.url)).status).toBe(200);
  });
});
