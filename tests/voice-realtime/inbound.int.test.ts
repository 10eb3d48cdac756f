import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { voiceCalls } from '@/db/schema';
import { connectMediaStream, streamOf } from '../helpers/twilio-media-fake';
import { parseTwiml } from '../helpers/twiml-parse';
import { useRealtimeHarness } from './harness';

/*
 * Issue 48, a live call to the assistant's number: with STEWARD_REALTIME_* set, the voice webhook
 * answers <Connect><Stream> to the kernel's media WebSocket; the stream is bridged to the realtime
 * model (μ-law both ways, the model's voice activity detection), the caller can interrupt, and the
 * words of both sides are the owner's voice chat.
 */

const h = useRealtimeHarness('+1628556');

describe('the owner calls, and talks with the assistant live', () => {
  it('speech in, audio out, and a barge-in clears playback and cancels the response; the transcript is the voice chat', async () => {
    const p = await h.owner();
    h.realtime.state.replies.push({ say: `Hi, it's ${p.assistantName}. How can I help?`, audioMs: 200 }, { say: 'Your dentist appointment is on Friday at 3 pm, and I can also tell you about the rest of the week.', audioMs: 3_000 });
    h.realtime.state.callerTranscripts.push('When is my dentist appointment?', 'Thanks, that is all.');
    let heardAnswer = 0;
    let audioBeforeBargeIn = 0;
    h.onStream(async (m) => {
      const s = await h.greeted();
      // The caller asks; the model answers with a long reply.
      await m.speak();
      await h.realtime.until(() => s.responses[1]?.firstAudioAt);
      heardAnswer = await m.until(() => m.audioBytes() > 3_200 && m.audioBytes());
      audioBeforeBargeIn = m.audioBytes();
      // The caller talks over it.
      await m.speak();
      await m.until(() => m.clears.length > 0);
      await h.realtime.until(() => s.cancels > 0 && s.responses[1]?.done);
      await h.realtime.until(() => s.responses[2]);
      await m.hangUp();
      return 'hung_up';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line });
    expect(c.streams).toHaveLength(1);
    expect(c.streams[0]!.url).toBe(`${process.env.STEWARD_PUBLIC_URL!.replace('http:', 'ws:')}/api/channels/twilio/media`);
    expect(c.streams[0]!.parameters.token).toMatch(/^ey/);
    // After the stream, Twilio asks what next.
    expect(c.verbs[0]!.map((v) => v.verb)).toEqual(['Stream', 'Redirect']);

    // The model was set up for a phone call: μ-law 8 kHz both ways, server VAD, the chat's tools.
    const session = h.realtime.sessions.at(-1)!;
    expect(session.authorization).toBe('Bearer rt-test-key');
    expect(new URL(session.url, 'ws://x').searchParams.get('model')).toBe('stand-in-realtime-1');
    const setup = session.updates[0]!.session;
    expect(setup.audio.input.format).toEqual({ type: 'audio/pcmu' });
    expect(setup.audio.output.format).toEqual({ type: 'audio/pcmu' });
    expect(setup.audio.input.turn_detection.type).toBe('server_vad');
    expect(setup.instructions).toContain(`You are ${p.assistantName}`);
    expect(setup.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['create_task', 'search_memories', 'end_call']));
    // The greeting was asked for at once, with the recording disclosure.
    expect(session.events.find((e) => e.type === 'response.create')!.response.instructions).toContain('This call is transcribed');
    // The caller's audio reached the model untouched.
    expect(session.appendedBytes).toBeGreaterThanOrEqual(2 * 8_000 - 320);

    // Audio out: the answer was forwarded to Twilio, and the barge-in dropped what had not played.
    expect(heardAnswer).toBeGreaterThan(0);
    const stream = h.streams.at(-1)!;
    expect(stream.clears).toHaveLength(1);
    expect(stream.clears[0]!.droppedMs).toBeGreaterThan(0);
    expect(session.cancels).toBe(1);
    expect(session.responses[1]!.cancelled).toBe(true);
    // Nothing of the cancelled answer was forwarded after the clear (the model had nothing more to say).
    expect(stream.mediaAfter(stream.clears[0]!.at + 1)).toEqual([]);
    expect(audioBeforeBargeIn).toBeLessThan(3_000 * 8);

    // What the owner sees: one voice chat with both sides, as spoken.
    const chats = await h.voiceChats(p);
    expect(chats).toHaveLength(1);
    expect(chats[0]!.title).toBe(`Phone call from ${p.phone}`);
    const messages = await h.messagesOf(p, chats[0]!.id);
    expect(messages.map((m) => [m.role, m.platform, m.content])).toEqual([
      ['assistant', 'voice', `Hi, it's ${p.assistantName}. How can I help?`],
      ['user', 'voice', 'When is my dentist appointment?'],
      ['user', 'voice', 'Thanks, that is all.'],
    ]);
    const row = await h.callRow(c.callSid);
    expect(row).toMatchObject({ media: 'realtime', caller: 'owner', callerVerified: true, chatId: chats[0]!.id, streamSid: stream.streamSid });
    expect(row!.transcript.map((l) => l.speaker)).toEqual(['assistant', 'caller', 'caller']);
    // No chat model turn ran: the realtime model answered.
    expect(h.state.llm.requests).toHaveLength(0);
  });

  it('end_call: the goodbye plays, the stream closes, and the streamed step hangs up', async () => {
    const p = await h.owner();
    h.realtime.state.replies.push({ say: 'Hello!', audioMs: 100 }, { say: 'Goodbye!', audioMs: 300, call: { name: 'end_call', arguments: {} } });
    h.realtime.state.callerTranscripts.push('Bye.');
    h.onStream(async (m) => {
      await h.greeted();
      await m.speak();
      const closed = await m.closed;
      expect(closed.code).toBe(1000);
      // The goodbye was forwarded whole before the stream closed.
      expect(m.audioBytes()).toBeGreaterThanOrEqual((100 + 300) * 8);
      return 'ended';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line });
    expect(c.ended).toBe('hangup');
    expect(c.requests.at(-1)!.url).toContain('/voice/streamed?');
    expect(parseTwiml(c.twiml.at(-1)!)).toEqual([{ verb: 'Hangup' }]);
  });

  it('the model cannot be reached: the call goes on in turns', async () => {
    const p = await h.owner();
    h.realtime.state.refuseNext = 503;
    h.state.llm.enqueue({ text: 'It is on Friday.' });
    h.onStream(async (m) => {
      await m.closed;
      return 'ended';
    });
    const c = await h.twilio.call({ from: p.phone, to: p.line, says: ['When is my appointment?'] });
    expect(c.heard).toContain('Sorry, the line had a problem. What can I do for you?');
    expect(c.heard).toContain('It is on Friday.');
    expect((await h.callRow(c.callSid))!.media).toBe('turns');
  });
});

describe('the media WebSocket admits only the call’s own stream', () => {
  it('a start without a valid token, with another call’s token, or a second stream of the call is closed and opens no model session', async () => {
    const p = await h.owner();
    // A call whose TwiML we read ourselves (the stream stand-in is not played by the fake).
    const callSid = `CA${'c'.repeat(32)}`;
    const voiceUrl = h.twilio.state.voiceUrl!;
    const params = { AccountSid: h.twilio.accountSid, CallSid: callSid, From: p.phone, To: p.line, CallStatus: 'ringing', Direction: 'inbound', StirVerstat: 'TN-Validation-Passed-A' };
    const answered = await h.twilio.post(voiceUrl, params);
    const stream = streamOf(answered.text)!;
    expect(stream).toBeTruthy();
    const sessionsBefore = h.realtime.sessions.length;

    const forged = await connectMediaStream({ url: stream.url, callSid, accountSid: h.twilio.accountSid, parameters: { token: `${stream.parameters.token!.slice(0, -4)}AAAA` } });
    expect((await forged.closed).code).toBe(1008);
    const none = await connectMediaStream({ url: stream.url, callSid, accountSid: h.twilio.accountSid, parameters: {} });
    expect((await none.closed).code).toBe(1008);
    const otherCall = await connectMediaStream({ url: stream.url, callSid: `CA${'d'.repeat(32)}`, accountSid: h.twilio.accountSid, parameters: stream.parameters });
    expect((await otherCall.closed).code).toBe(1008);
    expect(h.realtime.sessions.length).toBe(sessionsBefore);
    expect((await h.db().select().from(voiceCalls).where(eq(voiceCalls.callSid, callSid)))[0]!.streamSid).toBeNull();

    // The right one is admitted; the same token again is not.
    const real = await connectMediaStream({ url: stream.url, callSid, accountSid: h.twilio.accountSid, parameters: stream.parameters });
    await h.realtime.until(() => h.realtime.sessions.length > sessionsBefore);
    const replay = await connectMediaStream({ url: stream.url, callSid, accountSid: h.twilio.accountSid, parameters: stream.parameters });
    expect((await replay.closed).code).toBe(1008);
    expect(h.realtime.sessions.length).toBe(sessionsBefore + 1);
    await real.hangUp();
  });
});
