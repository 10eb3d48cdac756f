import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { assistants, chats, users, voiceCalls, type AssistantRow, type ChatRow, type UserRow, type VoiceCallRow, type VoiceCallTerms } from '@/db/schema';
import { personaFor } from '@/server/agent/runtime/persona';
import type { ConversationPlan, ToolAnswer } from '@/server/channels/realtime/conversation';
import type { RealtimeTool } from '@/server/channels/realtime/session';
import { firstListed } from '@/server/channels/voice-providers';
import { appendChatMessage } from '@/server/chats/messages';
import type { UsageHome } from '@/server/chats/live-voice-usage';
import { chatTier } from '@/server/chats/tier';
import { spokenTools } from '@/server/chats/spoken-tools';
import { startQueuedTurns } from '@/server/chats/turn-queue';
import { routeInbound } from './inbound';
import { placedCallRun } from './placed-call-usage';
import { appendTranscript, disclosureLine, disclosureOf, line } from './voice-calls';
import { DEFAULT_TERMS } from '@/server/channels/calls';
import {
  messageGreeting,
  messageInstructions,
  outboundGreeting,
  outboundInstructions,
  ownerGreeting,
  ownerInstructions,
} from './voice-realtime-instructions';

/*
 * What a realtime call does with the model's events (issue 48), by kind of call:
 * - the owner on a proven number: a chat of theirs for the call (platform voice, the same chat the
 *   turn mode uses), each side's words a message of it, and the chat turn's tools run as the
 *   chat's owner (an agent credential, which never decides an approval: what a tool prepares is
 *   staged, never released, by the call);
 * - someone else, when the assistant takes messages: no tools, nothing of the owner's; what they
 *   said reaches the owner once the call ends, through the channel layer (strangers.ts: kept as
 *   their words, a conversation that waits for the owner, tainted);
 * - a call the assistant placed: confined to the approved purpose and bounds; requests beyond it
 *   are referred back, agreements only where the dispatch allows any; the summary, agreements,
 *   referrals and transcript reach the task with the call's final status (voice-outbound.ts).
 * Every line of both sides goes into the call's transcript.
 */

export type { ToolAnswer };
export type CallPlan = ConversationPlan;

const endCallTool = (summary: boolean): RealtimeTool => ({
  name: 'end_call',
  description: 'Hang up, once you have said goodbye.' + (summary ? ' summary: what came of the call, in a sentence or two.' : ''),
  parameters: summary
    ? { type: 'object', properties: { summary: { type: 'string', description: 'What came of the call.' } }, required: ['summary'] }
    : { type: 'object', properties: {} },
});

const ownerNameOf = (u: Pick<UserRow, 'firstName' | 'name' | 'email'>) => u.firstName?.trim() || u.name?.trim() || u.email.split('@')[0]!;

async function parties(db: Db, call: VoiceCallRow): Promise<{ assistant: AssistantRow; owner: UserRow | null }> {
  const [assistant] = await db.select().from(assistants).where(eq(assistants.id, call.assistantId));
  const [owner] = call.userId ? await db.select().from(users).where(eq(users.id, call.userId)) : [];
  if (!assistant) throw new Error('the call’s assistant no longer exists');
  return { assistant, owner: owner ?? null };
}

/** The owner's chat for this call: the one the turn mode would use (thread key voice:<user>:<CallSid>). */
async function callChat(db: Db, call: VoiceCallRow, owner: UserRow): Promise<ChatRow> {
  const threadKey = `voice:${owner.id}:${call.callSid}`;
  return db.transaction(async (tx) => {
    await tx
      .insert(chats)
      .values({
        accountId: call.accountId,
        userId: owner.id,
        assistantId: call.assistantId,
        title: `Phone call from ${call.fromNumber}`,
        platform: 'voice',
        participants: [{ type: 'phone' as const, value: call.fromNumber }],
        threadKey,
        modelTier: await chatTier(tx, owner),
      })
      .onConflictDoNothing();
    const [chat] = await tx.select().from(chats).where(and(eq(chats.assistantId, call.assistantId), eq(chats.platform, 'voice'), eq(chats.threadKey, threadKey)));
    await tx.update(voiceCalls).set({ chatId: sql`coalesce(${voiceCalls.chatId}, ${chat!.id})` }).where(eq(voiceCalls.id, call.id));
    return chat!;
  });
}

function ownerPlan(db: Db, call: VoiceCallRow, assistant: AssistantRow, owner: UserRow, chat: ChatRow, persona: string[], disclosure: string | null): CallPlan {
  const tools = spokenTools(db, chat, `call:${call.id}`, ownerNameOf(owner), ['end_call']);
  return {
    setup: {
      instructions: ownerInstructions(assistant, ownerNameOf(owner), persona),
      voice: speechVoiceOrNull(assistant, owner),
      tools: [...tools.tools, endCallTool(false)],
      greeting: ownerGreeting(assistant.name, ownerNameOf(owner), disclosure),
    },
    heard: async (text) => {
      await db.transaction(async (tx) => {
        await appendChatMessage(tx, chat, { role: 'user', content: text, from: call.fromNumber, to: [call.toNumber], platform: 'voice', deliveryState: 'received', metadata: { channel: 'voice', callId: call.id } });
        await appendTranscript(tx, call.id, [line('caller', text)]);
      });
    },
    said: async (text) => {
      await db.transaction(async (tx) => {
        await appendChatMessage(tx, chat, { role: 'assistant', content: text, to: [call.fromNumber], platform: 'voice', deliveryState: 'provider_accepted', metadata: { channel: 'voice', callId: call.id, spoken: { callSid: call.callSid, at: new Date().toISOString() } } });
        await appendTranscript(tx, call.id, [line('assistant', text)]);
      });
    },
    runTool: async (name, args) => (name === 'end_call' ? { output: { ok: true }, endCall: true } : tools.run(name, args)),
    ended: async () => {},
  };
}

function messagePlan(db: Db, call: VoiceCallRow, assistant: AssistantRow, owner: UserRow, disclosure: string | null): CallPlan {
  const words: string[] = [];
  return {
    setup: { instructions: messageInstructions(assistant, ownerNameOf(owner)), voice: speechVoiceOrNull(assistant, owner), tools: [endCallTool(false)], greeting: messageGreeting(assistant.name, ownerNameOf(owner), disclosure) },
    heard: async (text) => {
      words.push(text);
      await appendTranscript(db, call.id, [line('caller', text)]);
    },
    said: (text) => appendTranscript(db, call.id, [line('assistant', text)]),
    runTool: async (name) => (name === 'end_call' ? { output: { ok: true }, endCall: true } : { output: { error: 'You can only take a message on this call.' } }),
    // Their words reach the owner once, as a text's would (strangers.ts: kept, a conversation opened, tainted).
    ended: async () => {
      if (!words.length) return;
      const queued = await db.transaction(async (tx) => {
        const [claimed] = await tx.update(voiceCalls).set({ exchanges: 1 }).where(and(eq(voiceCalls.id, call.id), eq(voiceCalls.exchanges, 0))).returning({ id: voiceCalls.id });
        if (!claimed) return [];
        const routed = await routeInbound(tx, {
          channel: 'voice',
          platform: 'voice',
          accountId: call.accountId,
          assistantId: call.assistantId,
          sender: { kind: 'phone', value: call.fromNumber, proven: call.callerVerified },
          to: [call.toNumber],
          cc: [],
          providerMessageId: `${call.callSid}:1`,
          threadRefs: [],
          threadKey: call.callSid,
          subject: null,
          text: words.join('\n'),
          attachments: [],
          automated: false,
          storedId: call.id,
        });
        await tx.update(voiceCalls).set({ chatId: sql`coalesce(${voiceCalls.chatId}, ${routed.chatId})`, taskId: sql`coalesce(${voiceCalls.taskId}, ${routed.taskId})` }).where(eq(voiceCalls.id, call.id));
        return routed.turns;
      });
      if (queued.length) await startQueuedTurns(db, queued);
    },
  };
}

const AGREEMENT = z.object({ what: z.string().trim().min(1).max(2_000) });
const REFERRAL = z.object({ request: z.string().trim().min(1).max(2_000) });
const SUMMARY = z.object({ summary: z.string().trim().max(4_000).optional() });

function outboundPlan(db: Db, call: VoiceCallRow, assistant: AssistantRow, owner: UserRow, persona: string[], disclosure: string | null): CallPlan {
  const terms: VoiceCallTerms = call.terms ?? DEFAULT_TERMS;
  const push = (column: typeof voiceCalls.commitments | typeof voiceCalls.referrals, text: string) =>
    db.update(voiceCalls).set({ [column === voiceCalls.commitments ? 'commitments' : 'referrals']: sql`${column} || ${JSON.stringify([text])}::jsonb` }).where(eq(voiceCalls.id, call.id));
  return {
    setup: {
      instructions: outboundInstructions(assistant, ownerNameOf(owner), call, terms, terms.asUser, persona),
      voice: speechVoiceOrNull(assistant, owner),
      tools: [
        { name: 'refer_to_owner', description: `Note a request beyond this call's approved purpose, for ${ownerNameOf(owner)} to decide. Agree to nothing about it.`, parameters: { type: 'object', properties: { request: { type: 'string' } }, required: ['request'] } },
        { name: 'note_agreement', description: 'Record something agreed on this call that is within what you may agree to.', parameters: { type: 'object', properties: { what: { type: 'string' } }, required: ['what'] } },
        endCallTool(true),
      ],
      greeting: outboundGreeting(call.script?.trim() || call.purpose || 'Hello.', disclosure),
    },
    heard: (text) => appendTranscript(db, call.id, [line('callee', text)]),
    said: (text) => appendTranscript(db, call.id, [line('assistant', text)]),
    runTool: async (name, args) => {
      if (name === 'refer_to_owner') {
        const p = REFERRAL.safeParse(args);
        if (!p.success) return { output: { error: 'request is required' } };
        await push(voiceCalls.referrals, p.data.request);
        return { output: { ok: true, note: `Noted for ${ownerNameOf(owner)}. Tell them ${ownerNameOf(owner)} will get back to them; agree to nothing about it.` } };
      }
      if (name === 'note_agreement') {
        const p = AGREEMENT.safeParse(args);
        if (!p.success) return { output: { error: 'what is required' } };
        // Nothing may be agreed on a call whose dispatch allows no agreement: it is referred back instead.
        if (!terms.mayAgree) {
          await push(voiceCalls.referrals, p.data.what);
          return { output: { error: `Nothing may be agreed on this call. It was noted for ${ownerNameOf(owner)} instead: tell them ${ownerNameOf(owner)} will get back to them.` } };
        }
        await push(voiceCalls.commitments, p.data.what);
        return { output: { ok: true } };
      }
      if (name === 'end_call') {
        const p = SUMMARY.safeParse(args);
        if (p.success && p.data.summary) await db.update(voiceCalls).set({ summary: p.data.summary }).where(eq(voiceCalls.id, call.id));
        return { output: { ok: true }, endCall: true };
      }
      return { output: { error: `There is no tool ${name} on this call. Tools: refer_to_owner, note_agreement, end_call` } };
    },
    ended: async () => {},
  };
}

/** The assistant's own `openai` voice (the realtime model speaks OpenAI's voices), else its owner's, else the configured or the server's default. */
const speechVoiceOrNull = (assistant: AssistantRow, owner: UserRow | null): string | null => firstListed([assistant, owner], 'openai');

/**
 * A call's plan, and who pays for its model and where its usage is kept (chats/live-voice-usage.ts):
 * always the owner. At the tier a chat of theirs has, on the call's chat, which the owner's call has
 * from its start and a message only once it is taken (at the end); a placed call has none: it is
 * the task's, kept on the run that placed it, at that run's tier (placed-call-usage.ts).
 */
export type PlannedCall = { plan: CallPlan; home: UsageHome };

/** The plan for a call whose stream authenticated, or null when the call may not be conversed with. */
export async function planCall(db: Db, call: VoiceCallRow): Promise<PlannedCall | null> {
  const { assistant, owner } = await parties(db, call);
  if (!owner) return null;
  const disclosure = disclosureOf(assistant) ? disclosureLine(ownerNameOf(owner)) : null;
  const payer = { accountId: call.accountId, userId: owner.id };
  if (call.direction === 'outbound') {
    const plan = outboundPlan(db, call, assistant, owner, (await personaFor(db, assistant, owner)).lines, disclosure);
    // Its run gone (the task deleted meanwhile): charged all the same, at a chat's tier, with no row.
    const placed = await placedCallRun(db, call);
    return { plan, home: { ...payer, id: null, modelTier: placed?.modelTier ?? (await chatTier(db, owner)), run: placed?.run ?? null } };
  }
  if (call.outcome === 'refused') return null;
  if (call.caller === 'owner') {
    const chat = await callChat(db, call, owner);
    return { plan: ownerPlan(db, call, assistant, owner, chat, (await personaFor(db, assistant, owner)).lines, disclosure), home: { ...payer, id: chat.id, modelTier: chat.modelTier } };
  }
  return { plan: messagePlan(db, call, assistant, owner, disclosure), home: { ...payer, id: null, modelTier: await chatTier(db, owner) } };
}
