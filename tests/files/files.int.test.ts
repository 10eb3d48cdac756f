import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '@/server/files/signing';
import { localStorage, s3Storage, useFileStorage } from '@/server/files/storage';
import { DriveFileEnvelope, UploadResponse } from '@/server/files/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
beforeAll(() => useFileStorage(localStorage(mkdtempSync(path.join(os.tmpdir(), 'steward-files-')))));
afterEach(() => {
  delete process.env.STEWARD_FILE_QUOTA_BYTES;
});

async function owner() {
  const acct = await newAccount(app());
  const u = await newUser(app(), acct);
  return { acct, u, key: await userKey(app(), acct, u.id) };
}

describe('files', () => {
  it('upload → PUT bytes to the signed URL → confirm → read and download', async () => {
    const { key } = await owner();
    const res = await call(app(), '/drive-files/upload', { key, body: { name: 'report.pdf', size: 11 } });
    expect(res.status).toBe(200);
    const up = UploadResponse.parse(res.body);
    expect(up.contentType).toBe('application/pdf');
    expect(up.url).toContain(`/api/drive-files/${up.fileId}/content?expires=`);
    const pending = DriveFileEnvelope.parse((await call(app(), `/drive-files/${up.fileId}`, { key })).body).driveFile;
    expect(pending).toMatchObject({ status: 'pending', name: 'report.pdf', size: 11, mimeType: 'application/pdf', folder: null });

    expect((await call(app(), `/drive-files/${up.fileId}/confirm`, { key, body: { size: 11 } })).status).toBe(400);
    const put = await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': up.contentType }, body: 'hello world' });
    expect(put.status).toBe(200);
    const wrong = await call(app(), `/drive-files/${up.fileId}/confirm`, { key, body: { size: 12 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('11');
    const ok = await call(app(), `/drive-files/${up.fileId}/confirm`, { key, body: { size: 11 } });
    expect(ok.body.driveFile).toMatchObject({ status: 'ready', size: 11 });
    expect((await call(app(), `/drive-files/${up.fileId}/confirm`, { key, body: { size: 999 } })).body.driveFile).toEqual(ok.body.driveFile);

    const dl = await fetch(`${app().baseUrl}/drive-files/${up.fileId}/download`, { headers: { Authorization: `Bearer ${key}` } });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/pdf');
    expect(dl.headers.get('content-disposition')).toContain('report.pdf');
    expect(await dl.text()).toBe('hello world');
    // Single use: a confirmed file takes no more bytes.
    expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': up.contentType }, body: 'replaced!!!' })).status).toBe(409);
  });

  it('refuses a tampered, expired or wrong-type upload, and bytes beyond the declared size', async () => {
    const { key } = await owner();
    const up = (await call(app(), '/drive-files/upload', { key, body: { name: 'a.txt', size: 3, mimeType: 'text/plain' } })).body;
    const tampered = up.url.replace(/signature=([0-9a-f])/, (_: string, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`);
    expect((await fetch(tampered, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'abc' })).status).toBe(403);
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = `${app().baseUrl}/drive-files/${up.fileId}/content?expires=${past}&signature=${await sign(app().database.db, 'upload', up.fileId, past)}`;
    expect((await fetch(expired, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'abc' })).status).toBe(403);
    expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: 'abc' })).status).toBe(400);
    expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'abcdef' })).status).toBe(400);
    expect((await fetch(up.url, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'abc' })).status).toBe(200);
  });

  it('checks the quota, counting pending uploads at their declared size', async () => {
    const { key } = await owner();
    process.env.STEWARD_FILE_QUOTA_BYTES = '100';
    expect((await call(app(), '/drive-files/upload', { key, body: { name: 'a.bin', size: 60 } })).status).toBe(200);
    const over = await call(app(), '/drive-files/upload', { key, body: { name: 'b.bin', size: 50 } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error_code: 'quota_exceeded', quotaBytes: 100, usedBytes: 60 });
    expect((await call(app(), '/drive-files/upload', { key, body: { name: 'c.bin', size: 40 } })).status).toBe(200);
    const bad = await call(app(), '/drive-files/upload', { key, body: { name: '', size: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('name');
    expect(bad.body.error).toContain('size');
  });

  it("another user's or account's file is 404 on read, confirm and download", async () => {
    const { acct, key } = await owner();
    const up = (await call(app(), '/drive-files/upload', { key, body: { name: 'x.txt', size: 1 } })).body;
    const other = await newUser(app(), acct);
    const otherKey = await userKey(app(), acct, other.id);
    for (const [p, m, body] of [
      [`/drive-files/${up.fileId}`, 'GET', undefined],
      [`/drive-files/${up.fileId}/download`, 'GET', undefined],
      [`/drive-files/${up.fileId}/confirm`, 'POST', { size: 1 }],
    ] as const) {
      expect((await call(app(), p, { key: otherKey, method: m, body })).status).toBe(404);
    }
    const stranger = await owner();
    expect((await call(app(), `/drive-files/${up.fileId}`, { key: stranger.key })).status).toBe(404);
  });
});

describe('S3 store', () => {
  it('presigns PUT and GET URLs for the bucket and key without any network call', async () => {
    const s3 = s3Storage({
      bucket: 'steward-files',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
    });
    const put = new URL((await s3.presignedPut('acct/file1', 'text/plain', 600))!);
    expect(put.pathname).toBe('/steward-files/acct/file1');
    expect(put.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(put.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(put.searchParams.get('X-Amz-SignedHeaders')).toContain('host');
    const get = new URL((await s3.presignedGet('acct/file1', 'a.txt', 300))!);
    expect(get.searchParams.get('response-content-disposition')).toContain('a.txt');
  });
});
