import { eq } from 'drizzle-orm';
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { users } from '@/db/schema';
import { attachChatLiveVoice } from '@/server/chats/live-voice-attach';
import { setHostedDomain } from '@/server/hosted/accounts';
import { sessionSetCookie } from '@/server/sign-in/session';
import { call, newAccount, newUser, userKey, type AccountFixture } from '../helpers/client';
import { hostedCaller } from '../helpers/hosted-caller';
import { silencePcm16, tonePcm16 } from '../helpers/pcm16';
import { startRealtimeFake, type RealtimeFake } from '../helpers/realtime-fake';
import { useTestServer } from '../helpers/server';

/**
 * Live voice on the chat page (issue 48), as a test drives it: the test server with the kernel's
 * live voice WebSocket attached as npm start attaches it, the realtime stand-in configured as the
 * deployment's model, people with a hosted domain, a chat and a signed-in cookie, and the page's
 * side of the socket (what it is sent, in order; audio paced as a microphone sends it).
 */
export function useLiveVoice() {
  const app = useTestServer();
  const parts = {} as { realtime: RealtimeFake };
  const saved: Record<string, string | undefined> = {};
  const setEnv = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) {
      if (!(k in saved)) saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };

  beforeAll(async () => {
    parts.realtime = await startRealtimeFake();
    setEnv(parts.realtime.env());
    attachChatLiveVoice(app().http, app().database.db);
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await parts.realtime?.close();
  });
  beforeEach(() => {
    parts.realtime.reset();
    setEnv(parts.realtime.env());
  });

  let n = 0;
  async function person(account: AccountFixture, host: string) {
    const u = await newUser(app(), account);
    const key = await userKey(app(), account, u.id);
    const hired = await call(app(), `/users/${u.id}/assistants`, { key, body: { name: `Iris ${++n}` } });
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    const chat = await call(app(), '/chats', { key, body: { assistantId: hired.body.assistant.id, title: 'Talking' } });
    expect(chat.status).toBe(201);
    const [row] = await app().database.db.select().from(users).where(eq(users.id, u.id));
    return {
      ...u,
      account,
      key,
      assistantName: hired.body.assistant.name as string,
      chatId: chat.body.chat.id as string,
      api: await hostedCaller(app(), host, u.id),
      cookie: (await sessionSetCookie(app().database.db, row!, 'email', true)).split(';')[0]!,
    };
  }
  type Person = Awaited<ReturnType<typeof person>>;

  /** Two people of one account with a hosted domain, and the origin of its pages. */
  async function pair() {
    const account = await newAccount(app(), 'Live voice');
    const host = `live-voice-${Date.now().toString(36)}-${++n}.steward.test`;
    await setHostedDomain(app().database.db, account.accountId, host);
    return { origin: `https://${host}`, a: await person(account, host), b: await person(account, host) };
  }

  const wsBase = () => app().baseUrl.replace(/^http/, 'ws').replace(/\/api$/, '');

  type Opened = { ok: true; ws: WebSocket } | { ok: false; status: number; body: string };
  function connect(path: string, headers: Record<string, string>): Promise<Opened> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${wsBase()}${path}`, { headers });
      ws.once('open', () => resolve({ ok: true, ws }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body }));
      });
      ws.once('error', (e) => reject(e));
    });
  }

  /** The person's token and an opened socket, from the chat page's origin. */
  async function open(p: Person, origin: string) {
    const offer = await p.api.voice.live({ chatId: p.chatId });
    if (!offer.available) throw new Error(`not available: ${offer.reason}`);
    const opened = await connect(`${offer.path}?token=${encodeURIComponent(offer.token)}`, { origin, cookie: p.cookie });
    if (!opened.ok) throw new Error(`refused: ${opened.status}`);
    return opened.ws;
  }

  return { app, realtime: () => parts.realtime, setEnv, pair, connect, open };
}

/** What the page would see: JSON events in order, the assistant's audio bytes, and when each came. */
export function listen(ws: WebSocket) {
  const events: Array<Record<string, any> & { at: number }> = [];
  const audio: Array<{ at: number; bytes: number }> = [];
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
  ws.on('message', (data, isBinary) => {
    if (isBinary) audio.push({ at: performance.now(), bytes: (data as Buffer).length });
    else events.push({ ...JSON.parse(data.toString()), at: performance.now() });
  });
  const until = async <T>(fn: () => T | undefined | false | null | 0, what: string, ms = 10_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const audioBytes = () => audio.reduce((s, a) => s + a.bytes, 0);
  return { events, audio, closed, until, audioBytes };
}

/** Sends the audio in 20 ms frames, paced as a microphone would. */
export async function speak(ws: WebSocket, audio: Buffer) {
  const step = 20 * 48;
  for (let i = 0; i < audio.length; i += step) {
    ws.send(audio.subarray(i, i + step), { binary: true });
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** 300 ms of speech then 200 ms of quiet: one utterance for the stand-in's voice detection. */
export const utterance = () => Buffer.concat([tonePcm16(300, 200), silencePcm16(200)]);

/** Polls `fn` until it answers something truthy. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
