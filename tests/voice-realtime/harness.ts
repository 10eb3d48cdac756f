import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { assistants, voiceCalls } from '@/db/schema';
import { attachVoiceMedia } from '@/server/messaging/voice-media';
import { useCartHarness } from '../approvals/execution-harness';
import { call } from '../helpers/client';
import { voiceLineOwner } from '../helpers/voice-line-owner';
import { startRealtimeFake, type RealtimeFake } from '../helpers/realtime-fake';
import { connectMediaStream, type MediaStream } from '../helpers/twilio-media-fake';
import { startTwilioFake, type TwilioFake } from '../helpers/twilio-fake';

/**
 * Live calls end to end (issue 48): the cart harness (real task runs and carts through the
 * built-in executor, the scripted chat model, an SMTP capture), a loopback Twilio (webhooks signed
 * as Twilio signs them, TwiML followed), Twilio's media stream played by the media stand-in, and
 * the realtime model played by the realtime stand-in. The kernel's media WebSocket is attached to
 * the test server as npm start attaches it.
 */
export function useRealtimeHarness(numberPrefix: string) {
  const h = useCartHarness();
  const parts = {} as { twilio: TwilioFake; realtime: RealtimeFake };
  const saved: Record<string, string | undefined> = {};
  let numbers = 0;
  /** What plays each media stream the TwiML opens: set by a test, given the stand-in connected to Steward. */
  let play: ((m: MediaStream, stream: { callSid: string; direction: string }) => Promise<'ended' | 'hung_up'>) | null = null;
  const streams: MediaStream[] = [];
  /** The realtime stand-in's session of the newest stream. */
  let sessionIndex = 0;

  beforeAll(async () => {
    parts.twilio = await startTwilioFake();
    parts.realtime = await startRealtimeFake();
    for (const [k, v] of Object.entries({ ...parts.twilio.env(), ...parts.realtime.env(), STEWARD_VOICE_TRUST_CALLER_ID: undefined })) {
      saved[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    parts.twilio.state.voiceUrl = `${process.env.STEWARD_PUBLIC_URL}/api/channels/twilio/voice`;
    attachVoiceMedia(h.app().http, h.db());
    parts.twilio.state.onStream = async (s) => {
      sessionIndex = parts.realtime.sessions.length;
      const m = await connectMediaStream({ url: s.url, callSid: s.callSid, accountSid: parts.twilio.accountSid, parameters: s.parameters });
      streams.push(m);
      if (!play) {
        await m.hangUp();
        return 'hung_up';
      }
      return play(m, s);
    };
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await parts.twilio?.close();
    await parts.realtime?.close();
  });
  beforeEach(() => {
    parts.realtime.reset();
    play = null;
    streams.length = 0;
  });

  const nextNumber = () => `${numberPrefix}${String(1000 + numbers++).padStart(4, '0')}`;

  /** A user whose assistant has a voice line, and who has a verified phone. */
  async function owner(opts: { talkToStrangers?: boolean } = {}) {
    const p = await voiceLineOwner(h, nextNumber);
    await h.db().update(assistants).set({ talkToStrangers: opts.talkToStrangers ?? false }).where(eq(assistants.id, p.assistantId));
    const assistant = (await call(h.app(), `/assistants/${p.assistantId}`, { key: p.key })).body.assistant;
    return { ...p, assistantName: assistant.name as string };
  }

  const callRow = async (sid: string) => (await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, sid)))[0];
  const voiceChats = async (p: { key: string }) => (await call(h.app(), '/chats?platform=voice', { key: p.key })).body.chats as Array<{ id: string; platform: string; title: string }>;
  const messagesOf = async (p: { key: string }, chatId: string) => (await call(h.app(), `/chats/${chatId}/messages`, { key: p.key })).body.messages as Array<Record<string, any>>;

  /** The model's session for the newest stream, once its first response (the greeting) has finished. */
  const greeted = async () => {
    const s = await parts.realtime.until(() => parts.realtime.sessions[sessionIndex]);
    await parts.realtime.until(() => s.responses[0]?.done);
    return s;
  };

  return {
    ...h,
    get twilio() {
      return parts.twilio;
    },
    get realtime() {
      return parts.realtime;
    },
    streams,
    onStream: (fn: typeof play) => {
      play = fn;
    },
    nextNumber,
    owner,
    callRow,
    voiceChats,
    messagesOf,
    greeted,
  };
}
