import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '@/db/schema';
import { setHostedDomain } from '@/server/hosted/accounts';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { startAudioFake, type AudioFake } from '../helpers/audio-fake';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Issue 35, live voice's server half (the chat page's voice.* procedures, with the session's
 * person, against the loopback OpenAI audio API): a recording of the person's own chat is
 * transcribed; an assistant's reply of their chat is spoken in the assistant's voice (a real WAV);
 * another person's chat or message is 404; without the audio models, 409 voice_not_configured.
 * The browser half (hold to talk, the turn, playback) is e2e/hosted-app-voice.spec.ts.
 */

const app = useTestServer();
let audio: AudioFake;
const AUDIO_ENV = ['STEWARD_AUDIO_BASE_URL', 'STEWARD_AUDIO_TRANSCRIBE_MODEL', 'STEWARD_AUDIO_SPEECH_MODEL', 'STEWARD_AUDIO_API_KEY'];
const saved = Object.fromEntries(AUDIO_ENV.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  audio = await startAudioFake();
  Object.assign(process.env, audio.env(), { STEWARD_AUDIO_API_KEY: 'sk-audio-test' });
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await audio?.close();
});

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.code}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
};

async function person() {
  const acct = await newAccount(app(), 'Live voice');
  const host = `voice-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.steward.test`;
  await setHostedDomain(app().database.db, acct.accountId, host);
  const u = await newUser(app(), acct);
  const key = await userKey(app(), acct, u.id);
  const assistant = (await call(app(), `/users/${u.id}/assistants`, { key, body: { name: 'Ada', voice: { provider: 'openai', voiceId: 'nova' } } })).body.assistant;
  const chat = (await call(app(), '/chats', { key, body: { assistantId: assistant.id } })).body.chat;
  const db = app().database.db;
  const [row] = await db.select().from(users).where(eq(users.id, u.id));
  const cookie = (await sessionSetCookie(db, row!, 'email', true)).split(';')[0]!;
  const caller = appRouter.createCaller(await portalContext(db, new Headers({ host, cookie })));
  return { ...u, key, chatId: chat.id as string, caller };
}

const recording = Buffer.from('OggS-or-webm-bytes-of-a-fake-recording').toString('base64');

describe('voice.transcribe and voice.speak', () => {
  it('transcribes the person’s recording with the configured model and key', async () => {
    const p = await person();
    audio.enqueue('Remind me to call the plumber.');
    const heard = await p.caller.voice.transcribe({ chatId: p.chatId, audio: recording, mimeType: 'audio/webm;codecs=opus' });
    expect(heard).toEqual({ ok: true, text: 'Remind me to call the plumber.' });
    expect(audio.requests.at(-1)).toMatchObject({ kind: 'transcription', model: 'fake-whisper', mimeType: 'audio/webm', filename: 'speech.webm', authorization: 'Bearer sk-audio-test' });
  });

  it('speaks an assistant reply of the person’s chat in the assistant’s voice: a WAV file', async () => {
    const p = await person();
    const added = await call(app(), `/chats/${p.chatId}/messages`, { key: p.key, body: { content: 'The plumber comes at 10.', role: 'assistant' } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const said = await p.caller.voice.speak({ chatId: p.chatId, messageId: added.body.message.id });
    expect(said).toMatchObject({ ok: true, contentType: 'audio/wav', voice: 'nova' });
    const wav = Buffer.from(said.audio, 'base64');
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(audio.requests.at(-1)).toMatchObject({ kind: 'speech', model: 'fake-tts', input: 'The plumber comes at 10.', voice: 'nova', format: 'wav' });

    const mine = await call(app(), `/chats/${p.chatId}/messages`, { key: p.key, body: { content: 'Thanks', role: 'user' } });
    expect(await codeOf(p.caller.voice.speak({ chatId: p.chatId, messageId: mine.body.message.id }))).toBe('BAD_REQUEST:bad_request');
  });

  it('an assistant without a voice of its own speaks with the one its owner chose (PATCH /profile voice); its own voice wins', async () => {
    const p = await person();
    const saved = await call(app(), '/profile', { method: 'PATCH', key: p.key, body: { voice: { provider: 'openai', voiceId: 'shimmer' } } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.user.voice).toEqual({ provider: 'openai', voiceId: 'shimmer' });
    const plain = (await call(app(), `/users/${p.id}/assistants`, { key: p.key, body: { name: 'Plain' } })).body.assistant;
    const chat = (await call(app(), '/chats', { key: p.key, body: { assistantId: plain.id } })).body.chat;
    const reply = await call(app(), `/chats/${chat.id}/messages`, { key: p.key, body: { content: 'Done.', role: 'assistant' } });
    expect(await p.caller.voice.speak({ chatId: chat.id, messageId: reply.body.message.id })).toMatchObject({ voice: 'shimmer' });
    expect(audio.requests.at(-1)).toMatchObject({ kind: 'speech', voice: 'shimmer' });
    // Ada names nova: the assistant's own choice is kept.
    const own = await call(app(), `/chats/${p.chatId}/messages`, { key: p.key, body: { content: 'Done too.', role: 'assistant' } });
    expect(await p.caller.voice.speak({ chatId: p.chatId, messageId: own.body.message.id })).toMatchObject({ voice: 'nova' });
    // A voice the provider does not list is passed over, as an assistant's is.
    await call(app(), '/profile', { method: 'PATCH', key: p.key, body: { voice: { provider: 'openai', voiceId: 'no-such-voice' } } });
    const again = await call(app(), `/chats/${chat.id}/messages`, { key: p.key, body: { content: 'Again.', role: 'assistant' } });
    expect((await p.caller.voice.speak({ chatId: chat.id, messageId: again.body.message.id })).voice).not.toBe('no-such-voice');
  });

  it('another person’s chat and message are 404; an empty or non-audio upload is refused naming the field', async () => {
    const a = await person();
    const b = await person();
    const added = await call(app(), `/chats/${a.chatId}/messages`, { key: a.key, body: { content: 'Private reply', role: 'assistant' } });
    const seen = audio.requests.length;
    expect(await codeOf(b.caller.voice.transcribe({ chatId: a.chatId, audio: recording, mimeType: 'audio/webm' }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(b.caller.voice.speak({ chatId: a.chatId, messageId: added.body.message.id }))).toBe('NOT_FOUND:not_found');
    expect(await codeOf(b.caller.voice.speak({ chatId: b.chatId, messageId: added.body.message.id }))).toBe('NOT_FOUND:not_found');
    expect(audio.requests.length).toBe(seen);
    const bad = await codeOf(a.caller.voice.transcribe({ chatId: a.chatId, audio: '', mimeType: 'text/html' }));
    expect(bad).toBe('BAD_REQUEST');
  });

  it('without the audio models: 409 voice_not_configured, and the providers say so', async () => {
    const p = await person();
    delete process.env.STEWARD_AUDIO_TRANSCRIBE_MODEL;
    delete process.env.STEWARD_AUDIO_SPEECH_MODEL;
    try {
      expect(await codeOf(p.caller.voice.transcribe({ chatId: p.chatId, audio: recording, mimeType: 'audio/webm' }))).toBe('CONFLICT:voice_not_configured');
      const providers = await p.caller.voice.providers();
      expect(providers.providers.find((x) => x.provider === 'openai')).toMatchObject({ configured: false });
      expect(providers).toEqual((await call(app(), '/voice/providers', { key: p.key })).body);
    } finally {
      Object.assign(process.env, audio.env());
    }
  });
});
