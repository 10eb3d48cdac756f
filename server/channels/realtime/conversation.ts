import { logger } from '@/server/logger';
import type { RealtimeConfig } from './config';
import type { RealtimeServerEvent, RealtimeUsage } from './events';
import { openRealtimeSession, type RealtimeSession, type SessionSetup } from './session';

/*
 * The model's side of a live conversation (issue 48), shared by phone calls (Twilio's media
 * stream, server/messaging/voice-bridge.ts) and the hosted app's live voice
 * (server/chats/live-voice-socket.ts). Each of those frames audio for its listener; this decides
 * what happens with the model's events:
 * - the model's audio goes to the listener as it comes; when a response ends, the listener is
 *   asked to confirm when what it got has been played (a mark);
 * - barge-in: when the model's voice activity detection hears the person start speaking while the
 *   assistant may still be heard (a response under way, or audio whose mark has not come back),
 *   the listener is told to `clear` its playback at once, then the response is cancelled;
 * - the words of both sides, tool calls and the end go to the conversation's plan, one after
 *   another in the order the events came (a database queue), and to the listener as captions;
 * - each response's usage (response.done) goes to the plan, in the same order, when it has a
 *   `used` (both record it as the model usage of the conversation's chat: chats/live-voice-usage.ts);
 * - end_call: the goodbye plays out (its mark comes back, or GOODBYE_MS passes), then the listener
 *   hangs up.
 */

/** How long a goodbye may play before the listener is hung up anyway. */
const GOODBYE_MS = 15_000;

export type ToolAnswer = { output: unknown; endCall?: boolean };

/** What a conversation does with what is said and asked for (a call's plan, a chat's). */
export type ConversationPlan = {
  setup: SessionSetup;
  heard: (text: string) => Promise<void>;
  said: (text: string) => Promise<void>;
  runTool: (name: string, args: unknown) => Promise<ToolAnswer>;
  /** A response's tokens, as the model reported them (optional: a plan that counts nothing leaves it out). */
  used?: (usage: RealtimeUsage) => Promise<void>;
  ended: () => Promise<void>;
};

/** Whoever hears the assistant: a phone caller through Twilio, a person in the hosted app. */
export type Listener = {
  /** The model's audio (base64, in the session's format), to be played in order. */
  audio: (base64: string) => void;
  /** Barge-in: whatever has not been played yet is dropped. */
  clear: () => void;
  /** The response's audio so far has been sent: `played()` is called when it has been heard. */
  mark: (name: string) => void;
  /** Words as they are heard and said (captions); optional. */
  caption?: (who: 'person' | 'assistant', text: string) => void;
  /** The assistant ended the conversation and its goodbye played. */
  hangUp: () => void;
  /** The model's session ended on its own (a failure): the listener ends the conversation. */
  modelGone: (reason: string) => void;
};

export type Conversation = {
  /** The person's audio (base64, in the session's format). */
  appendAudio: (base64: string) => void;
  /** The listener has played up to a mark it was sent. */
  played: () => void;
  /** Ends the conversation: the model's session is closed, `before` (if any) then the plan's end run; resolves once all was recorded. */
  finish: (before?: () => Promise<unknown>) => Promise<void>;
};

export async function openConversation(config: RealtimeConfig, plan: ConversationPlan, listener: Listener, log: Record<string, unknown>): Promise<Conversation> {
  let model: RealtimeSession | null = null;
  let finished = false;
  let finishing: Promise<void> | null = null;
  /** A response is being produced; audio has been sent whose closing mark has not come back. */
  let responding = false;
  let unplayedMarks = 0;
  let audioSinceMark = false;
  let marks = 0;
  let endAfterPlayback = false;
  let goodbyeTimer: ReturnType<typeof setTimeout> | null = null;
  /** Work for the database, in the order the events came (transcript lines, tool calls). */
  let queue: Promise<unknown> = Promise.resolve();
  const later = (work: () => Promise<unknown>) => {
    queue = queue.then(work).catch((err: unknown) => logger.error({ err, ...log }, 'voice: a live conversation could not record an event'));
  };

  const hangUp = () => {
    if (finished) return;
    if (goodbyeTimer) clearTimeout(goodbyeTimer);
    listener.hangUp();
  };

  const markPlayback = () => {
    if (!audioSinceMark) return;
    audioSinceMark = false;
    unplayedMarks++;
    listener.mark(`r${++marks}`);
  };

  const onModel = (e: RealtimeServerEvent) => {
    if (finished) return;
    switch (e.kind) {
      case 'audio':
        responding = true;
        audioSinceMark = true;
        listener.audio(e.delta);
        return;
      case 'speech_started':
        // Barge-in: the person speaks over the assistant. The listener drops what it has not played yet.
        if (responding || unplayedMarks > 0 || audioSinceMark) {
          listener.clear();
          unplayedMarks = 0;
          audioSinceMark = false;
          if (responding) model?.cancelResponse();
          responding = false;
        }
        return;
      case 'response_created':
        responding = true;
        return;
      case 'response_done': {
        responding = false;
        markPlayback();
        const { usage } = e;
        if (usage && plan.used) later(() => plan.used!(usage));
        if (endAfterPlayback && unplayedMarks === 0) hangUp();
        return;
      }
      case 'caller_transcript': {
        const text = e.text.trim();
        if (!text) return;
        listener.caption?.('person', text);
        later(() => plan.heard(text));
        return;
      }
      case 'assistant_transcript': {
        const text = e.text.trim();
        if (!text) return;
        listener.caption?.('assistant', text);
        later(() => plan.said(text));
        return;
      }
      case 'function_call': {
        let args: unknown = {};
        try {
          args = e.arguments ? JSON.parse(e.arguments) : {};
        } catch {
          args = null;
        }
        later(async () => {
          const answer = args === null ? { output: { error: 'The arguments were not JSON.' } } : await plan.runTool(e.name, args);
          if (answer.endCall) {
            // The goodbye plays out (its mark comes back), then the listener hangs up.
            endAfterPlayback = true;
            goodbyeTimer = setTimeout(hangUp, GOODBYE_MS);
            if (!responding && unplayedMarks === 0 && !audioSinceMark) hangUp();
            return;
          }
          model?.sendFunctionOutput(e.callId, answer.output);
        });
        return;
      }
      case 'error':
        logger.warn({ ...log, code: e.code, message: e.message }, 'voice: the realtime model reported an error');
        return;
      default:
        return;
    }
  };

  const finish = (before?: () => Promise<unknown>): Promise<void> => {
    if (finishing) return finishing;
    finished = true;
    if (goodbyeTimer) clearTimeout(goodbyeTimer);
    model?.close();
    later(async () => {
      await before?.();
      await plan.ended();
    });
    finishing = queue.then(() => undefined);
    return finishing;
  };

  model = await openRealtimeSession(config, plan.setup, onModel, (reason) => {
    if (!finished) listener.modelGone(reason);
  });

  return {
    appendAudio: (base64) => {
      if (!finished) model?.appendAudio(base64);
    },
    played: () => {
      unplayedMarks = Math.max(0, unplayedMarks - 1);
      if (endAfterPlayback && unplayedMarks === 0 && !responding) hangUp();
    },
    finish,
  };
}
