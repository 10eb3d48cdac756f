import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelEvents, chatMessages, chats } from '@/db/schema';
import { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import { slackAppInstalled } from '../helpers/slack-app-setup';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';
import { downloadSlackFile } from '@/server/channels/slack/file-download';

/*
 * Files Slack sends to the assistant (issue 41: files on every channel), against the loopback Slack
 * (tests/helpers/slack-fake.ts), whose file host serves a shared file's bytes only for the bot
 * token of its workspace: the owner's DM with a file (and no words) becomes their message in their
 * Slack chat with the file stored as theirs, readable through the files API; a file whose address
 * is on another host is never fetched (that host sees no request) and is named as not received, as
 * is a deleted file and a download Slack refuses, while the message still routes.
 */

const h = useCartHarness();
const { app } = h;
let slack: SlackFake;
/** Another host an event could name: it records every request that reaches it. */
let elsewhere: { url: string; requests: string[]; server: http.Server };
const saved = { ...process.env };
const KEYS = ['STEWARD_SLACK_API_URL', 'STEWARD_SLACK_FILES_URL', 'SLACK_OAUTH_TOKEN_URL', 'STEWARD_PROVIDER_ALLOWED_RANGES', 'STEWARD_SLACK_PROGRESS_AFTER_MS', 'STEWARD_CHANNEL_SWEEP_MS'];

beforeAll(async () => {
  slack = await startSlackFake();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'Content-Type': 'application/pdf' });
    res.end('%PDF-1.4 not from Slack');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  elsewhere = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
  Object.assign(process.env, {
    STEWARD_SLACK_API_URL: slack.apiUrl,
    STEWARD_SLACK_FILES_URL: slack.filesUrl,
    SLACK_OAUTH_TOKEN_URL: slack.tokenUrl,
    // The other host is reachable on this machine: only the origin rule keeps Steward from it.
    STEWARD_PROVIDER_ALLOWED_RANGES: '127.0.0.1/32',
    STEWARD_SLACK_PROGRESS_AFTER_MS: '60000',
    STEWARD_CHANNEL_SWEEP_MS: '150',
  });
  delete process.env.SLACK_CLIENT_ID;
  delete process.env.SLACK_CLIENT_SECRET;
  delete process.env.SLACK_SIGNING_SECRET;
});
afterAll(async () => {
  await slack?.close();
  elsewhere?.server.closeAllConnections();
  await new Promise<void>((r) => (elsewhere ? elsewhere.server.close(() => r()) : r()));
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

let teams = 0;
type Person = Awaited<ReturnType<typeof h.person>>;
type Setup = { appId: string; eventsUrl: string; secret: string; team: string; owner: string; botToken: string };


/** The owner's assistant gets its own app, installed in a workspace (which links the installer, the owner). */
async function slackSetup(p: Person): Promise<Setup> {
  const team = `TF${++teams}X${Date.now() % 100000}`;
  const owner = `U${teams}FOWNER`;
  const botToken = `xoxb-files-${teams}-${Date.now()}`;
  const made = await slackAppInstalled(app(), slack, p, { team, authedUser: owner, botUserId: `UBOTF${teams}`, botToken });
  return { appId: made.appId, eventsUrl: made.eventsUrl, secret: made.secret, team, owner, botToken };
}

const newTs = () => `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
/** A DM with files, as Slack sends it: a `message` of subtype `file_share`, its text possibly empty. */
const dmWithFiles = (s: Setup, text: string, files: Array<Record<string, unknown>>, ts = newTs()) => ({
  team: s.team,
  event: { type: 'message', subtype: 'file_share', channel_type: 'im', channel: `D${s.owner.slice(1)}`, user: s.owner, text, ts, event_ts: ts, files, upload: false },
});

/** Sends the event and waits until it was routed; the owner's message it became. */
async function routedMessage(s: Setup, p: Person, e: ReturnType<typeof dmWithFiles>) {
  const sent = await slack.event(s.eventsUrl, s.secret, e);
  expect(sent.status).toBe(200);
  const row = await h.until(async () => {
    const rows = await h.db().select().from(channelEvents).where(eq(channelEvents.appKey, s.appId));
    return rows.find((r) => (r.payload as { event: { ts: string } }).event.ts === e.event.ts && r.status !== 'received') ?? null;
  }, 20_000);
  expect(row.status, row.reason ?? '').toBe('routed');
  const [chat] = await h.db().select().from(chats).where(and(eq(chats.userId, p.id), eq(chats.platform, 'slack')));
  expect(chat, 'the owner’s Slack chat').toBeTruthy();
  // Its referenceId is the message's reference in the owner's thread: `<thread>#<ts>@<the DM>`.
  const messages = await h.db().select().from(chatMessages).where(and(eq(chatMessages.chatId, chat!.id), eq(chatMessages.role, 'user')));
  return { row, message: messages.find((m) => m.referenceId?.endsWith(`#${e.event.ts}@${e.event.channel}`)) ?? null };
}

const download = async (p: Person, fileId: string) => {
  const res = await fetch(`${app().baseUrl}/drive-files/${fileId}/download`, { headers: { Authorization: `Bearer ${p.key}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
};

describe('files Slack sends to the assistant (issue 41)', () => {
  it('the owner’s DM of a file alone becomes their message with the file stored as theirs, fetched with the bot token', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n');
    const file = slack.shareFile({ team: s.team, name: 'contract.pdf', mimetype: 'application/pdf', content: pdf });
    const before = slack.fileRequests.length;
    const { message } = await routedMessage(s, p, dmWithFiles(s, '', [file]));
    expect(message, 'the files-only message was routed to the owner’s chat').toBeTruthy();
    expect(message!.content).toBe('');
    expect(message!.files).toEqual([expect.objectContaining({ filename: 'contract.pdf', mimeType: 'application/pdf' })]);
    // Fetched once, from Slack's file host, with the bot token of the workspace (the host refuses any other).
    const asked = slack.fileRequests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.path).toBe(new URL(String(file.url_private_download)).pathname);
    expect(asked[0]!.token).toMatch(/^xoxb-/);
    // The file is the owner's, through the public files API.
    const got = await download(p, message!.files[0]!.fileId);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(pdf)).toBe(true);
    const listed = await call(app(), `/drive-files/${message!.files[0]!.fileId}`, { key: p.key });
    expect(listed.status).toBe(200);
    // A turn answers it in its thread, as any DM.
    await h.until(async () => slack.posted.find((m) => m.channel === `D${s.owner.slice(1)}`) ?? null, 20_000);
  });

  it('a file on another host is never fetched, a deleted one is not either: both named as not received, the message routed', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const foreign = { ...slack.shareFile({ team: s.team, name: 'invoice.pdf', mimetype: 'application/pdf', content: Buffer.from('%PDF-1.4 real') }) };
    foreign.url_private_download = `${elsewhere.url}/files-pri/${s.team}-FEVIL/download/invoice.pdf`;
    foreign.url_private = `${elsewhere.url}/files-pri/${s.team}-FEVIL/invoice.pdf`;
    const deleted = { id: 'FGONE1', mode: 'tombstone', name: 'old.pdf' };
    const before = slack.fileRequests.length;
    const { message } = await routedMessage(s, p, dmWithFiles(s, 'Please pay this', [foreign, deleted]));
    expect(elsewhere.requests).toEqual([]);
    expect(slack.fileRequests.slice(before)).toEqual([]);
    expect(message!.files).toEqual([]);
    expect(message!.content).toMatch(/^Please pay this\n\(files not received: /);
    expect(message!.content).toContain(`invoice.pdf: its address is not on Slack's file host (${new URL(slack.filesUrl).origin}): not fetched`);
    expect(message!.content).toContain('old.pdf: it was deleted in Slack');
  });

  it('a download Slack refuses (403) is named as not received; the message routes with the file that came', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const locked = slack.shareFile({ team: s.team, name: 'locked.pdf', mimetype: 'application/pdf', content: Buffer.from('%PDF-1.4 locked'), status: 403 });
    const notes = slack.shareFile({ team: s.team, name: 'notes.txt', mimetype: 'text/plain', content: Buffer.from('meeting notes') });
    const { message } = await routedMessage(s, p, dmWithFiles(s, 'Two files', [locked, notes]));
    expect(message!.content).toBe('Two files\n(files not received: locked.pdf: Slack refused the download (HTTP 403))');
    expect(message!.files).toEqual([expect.objectContaining({ filename: 'notes.txt', mimeType: 'text/plain' })]);
    const got = await download(p, message!.files[0]!.fileId);
    expect(got.bytes.toString()).toBe('meeting notes');
  });

  it('a download is bounded: a file larger than what is left is refused by its size unasked, or cut once the bytes pass it; a sign-in page is not a file', async () => {
    const p = await h.person(await newAccount(app()));
    const s = await slackSetup(p);
    const big = slack.shareFile({ team: s.team, name: 'big.bin', mimetype: 'application/octet-stream', content: Buffer.alloc(4096, 1) });
    const before = slack.fileRequests.length;
    expect(await downloadSlackFile(s.botToken, big, { cap: 1024 })).toEqual({ name: 'big.bin', problem: "larger than the 1024 bytes left of the 25 MB a message's files may take" });
    expect(slack.fileRequests.length).toBe(before);
    // Slack's size left out: asked for, and refused once the answer passes the cap.
    const { size: _size, ...unsized } = big;
    expect(await downloadSlackFile(s.botToken, unsized, { cap: 1024 })).toMatchObject({ name: 'big.bin', problem: expect.stringMatching(/^larger than/) });
    expect(slack.fileRequests.length).toBe(before + 1);
    expect(await downloadSlackFile(s.botToken, unsized)).toMatchObject({ filename: 'big.bin', content: Buffer.alloc(4096, 1) });
    // Another workspace's token: Slack answers its sign-in page with HTTP 200, which is not the file.
    expect(await downloadSlackFile('xoxb-not-this-workspace', big)).toEqual({ name: 'big.bin', problem: 'Slack answered with a sign-in page (the app may lack the files:read scope)' });
  });
});
