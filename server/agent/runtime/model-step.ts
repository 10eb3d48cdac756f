import { storableJson, storableText } from '@/db/storable';
import { generateText, streamText } from 'ai';
import type { Db } from '@/db/client';
import { recordCallUsage } from '@/server/models/model-calls';
import { ModelNotConfiguredError } from '@/server/models/errors';
import { languageModel } from '@/server/models/language-model';
import { creditsFor } from '@/server/models/prices';
import { modelTelemetry } from '@/server/models/telemetry';
import type { ModelTier } from '@/server/models/tiers';
import { stewardUsage, type StewardUsage } from '@/server/models/usage';
import { releaseCall, settleCall, settledAlerts, settlementSql, type SpentBudget } from '@/server/budgets/reserve';
import { settleLater } from '@/server/budgets/settle-later';
import { benchSwitches } from './bench-switches';
import type { ModelContext, ModelHost, OpenedCall, ToolCallRequest } from './host';
import { accountFrozen } from './owner-actor';
import type { ToolRegistry } from './tools/registry';

/** One model call's result, as the step stores it (JSON): replayed on restart instead of calling again. */
export type ModelTurn =
  | {
      kind: 'answer';
      text: string;
      toolCalls: ToolCallRequest[];
      usage: StewardUsage;
      modelId: string;
      finishReason: string;
      /** The tier the run asked for, the tier whose model served it (prices follow it), and whether the deployment bills it. */
      tier: ModelTier;
      servedBy: ModelTier;
      billable: boolean;
      /**
       * How many messages of the user the call read (a task run). A later count above it means the
       * user wrote while the model was answering: the run must not end without a call that reads it.
       * Absent on results stored before it existed, and for chat turns (nothing is then taken as late).
       */
      seenUserMessages?: number;
    }
  | { kind: 'not_configured'; message: string }
  | { kind: 'stopped'; reason: string }
  /** The account's kill switch is engaged: no call was made. */
  | { kind: 'frozen' };

/**
 * A model step's result: the model call's, or why no call was made because of credits: every
 * budget of the owner is `busy` (calls in flight may spend what is left; the run asks again
 * shortly) or one is spent (`credits_exhausted`: the run ends; a task waits in credits_blocked,
 * a chat turn ends with the `error` event credits_exhausted).
 */
export type ModelStep = ModelTurn | { kind: 'credits_busy' } | { kind: 'credits_exhausted'; budget: SpentBudget };

/** The chat's reasoning effort as `reasoning_effort`: low, medium and high as they are; xhigh and max as high, the highest value OpenAI-compatible servers share. */
export function reasoningEffort(effort: string | null | undefined): string | undefined {
  if (!effort) return undefined;
  return effort === 'low' || effort === 'medium' ? effort : 'high';
}

/**
 * One durable model step of a run or turn (`n` counts its model calls from 1), for either host
 * (host.ts): the call's estimated cost reserved against every budget that covers the owner
 * (server/budgets/reserve.ts), the model call, then its usage row (tokens as the provider
 * reported them, credits priced by the tier that served it) and the reservation settled with
 * those credits (recordUsage: far from the budgets' limits, off the step's path). A
 * call that was not made or failed releases what it reserved. All of it happens inside the same
 * engine step, so a finished step is replayed from its stored result and records nothing again;
 * a step retried after a crash between the call and the row reserves nothing new (the
 * reservation is named by run and call), calls the model again and records once, because the
 * usage row is written once per (run, call).
 *
 * The reservation's statement goes to the database while the run or turn is opened and its
 * context read (openCall: reads only), so its time hides behind theirs. Its answer is taken
 * first, as if it had been made first: a busy or spent budget ends the step whatever the reads
 * found, and nothing is streamed, recorded (taint included) or sent before the reservation holds.
 */
export async function modelStep<Opened extends OpenedCall, Subject>(db: Db, host: ModelHost<Opened>, n: number, tools: ToolRegistry<Subject>, now = new Date()): Promise<ModelStep> {
  const ref = host.callRef(n);
  const reserving = host.reserve(db, ref, now, benchSwitches.trustChecks);
  const opening = openCall(db, host, now);
  // Awaited below once the reservation holds; a refused or failed reservation leaves the reads unused.
  opening.catch(() => undefined);
  const reservation = await reserving;
  if (reservation.kind === 'busy') return { kind: 'credits_busy' };
  if (reservation.kind === 'exhausted') return { kind: 'credits_exhausted', budget: reservation.budget };
  const held = reservation.kind === 'reserved';
  try {
    const opened = await opening;
    const turn = 'kind' in opened ? opened : await modelCall(db, host, n, tools, opened);
    if (turn.kind !== 'answer') {
      if (held) await db.transaction((tx) => releaseCall(tx, ref));
      return turn;
    }
    await recordUsage(db, host, n, turn, held ? { ref, later: reservation.farFromLimit } : null);
    return turn;
  } catch (e) {
    if (held) await db.transaction((tx) => releaseCall(tx, ref));
    throw e;
  }
}

/** What the call reads before it is made: the run or turn, the model that serves its tier, and the context (being read). */
type OpenedModel<Opened> = { opened: Opened; resolved: Awaited<ReturnType<typeof languageModel>>; context: Promise<ModelContext> };

/**
 * The run or turn as it is now (stopped meanwhile, or its account frozen: no call), the model
 * that serves its tier, and its context as it is now (a message sent during the run is in it),
 * whose read starts at once: reads only, so they may run before the reservation answers.
 */
async function openCall<Opened extends OpenedCall>(db: Db, host: ModelHost<Opened>, now: Date): Promise<OpenedModel<Opened> | Extract<ModelTurn, { kind: 'stopped' | 'frozen' | 'not_configured' }>> {
  const opened = await host.open(db);
  if ('stopped' in opened) return { kind: 'stopped', reason: opened.stopped };
  if (accountFrozen(opened.actor)) return { kind: 'frozen' };
  let resolved;
  try {
    resolved = await languageModel(db, opened.accountId, opened.tier);
  } catch (e) {
    if (e instanceof ModelNotConfiguredError) return { kind: 'not_configured', message: e.message };
    throw e;
  }
  const context = host.context(db, opened, now);
  // Awaited by modelCall; a step that ends before (its reservation refused) leaves it unused.
  context.catch(() => undefined);
  return { opened, resolved, context };
}

/**
 * The model call, with the tools without `execute` so the SDK returns the calls instead of
 * running them. Untrusted content in what the model is about to read is recorded first (a task
 * run's taint), so the platform holds what the run stages (approvals/staging.ts) whatever the
 * model makes of it.
 */
async function modelCall<Opened extends OpenedCall, Subject>(db: Db, host: ModelHost<Opened>, n: number, tools: ToolRegistry<Subject>, { opened, resolved, context: reading }: OpenedModel<Opened>): Promise<ModelTurn> {
  const stream = host.stream?.(db, n);
  const [context] = await Promise.all([reading, stream?.begin()]);
  if (benchSwitches.trustChecks && host.noteContextTaint) await host.noteContextTaint(db, opened, context.taint);
  const effort = reasoningEffort(opened.effort);
  const request = {
    model: resolved.model,
    system: context.system,
    messages: context.messages,
    tools: tools.definitions(),
    // The step is retried by the durable engine; one quick retry here absorbs a dropped connection.
    maxRetries: 1,
    experimental_telemetry: modelTelemetry(host.telemetry),
    ...(effort ? { providerOptions: { steward: { reasoningEffort: effort } } } : {}),
  };
  let result: { text: string; toolCalls: { toolCallId: string; toolName: string; input?: unknown }[]; usage: Parameters<typeof stewardUsage>[0]; finishReason: string };
  if (!stream) result = await generateText(request);
  else {
    // Every text delta goes where the host's answer goes as it arrives.
    const streamed = streamText(request);
    for await (const part of streamed.fullStream) {
      if (part.type === 'text-delta' && part.text) stream.delta(part.text);
      else if (part.type === 'error') throw part.error instanceof Error ? part.error : new Error(String(part.error));
    }
    await stream.end();
    const [text, toolCalls, usage, finishReason] = await Promise.all([streamed.text, streamed.toolCalls, streamed.usage, streamed.finishReason]);
    result = { text, toolCalls, usage, finishReason };
  }
  return {
    kind: 'answer',
    // What the model wrote may echo anything it read: as Postgres can store it, for every write that follows (db/storable.ts).
    text: storableText(result.text),
    toolCalls: result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: storableJson(c.input ?? {}) })),
    usage: stewardUsage(result.usage),
    modelId: resolved.modelId,
    finishReason: result.finishReason,
    tier: resolved.tier,
    servedBy: resolved.servedBy,
    billable: resolved.billable,
    ...(context.seenUserMessages !== undefined ? { seenUserMessages: context.seenUserMessages } : {}),
  };
}

/**
 * The call's usage row and, when a reservation holds its cost, the settlement. Far from the
 * budgets' limits (`later`), it is made once the row has committed, off the step's path
 * (budgets/settle-later.ts; the sweep settles from the row what a crash left held). Near a limit,
 * where the next call waits for it, it is made by the statement that writes the row (one round
 * trip for both); when no row was written (a retried step's row is there already, or the run is
 * gone), on its own. The host's own record of the call (a chat turn's tool-calls event) joins the
 * row's transaction.
 */
async function recordUsage<Opened extends OpenedCall>(db: Db, host: ModelHost<Opened>, n: number, answer: Extract<ModelTurn, { kind: 'answer' }>, held: { ref: string; later: boolean } | null) {
  const priced = creditsFor(answer.servedBy, answer.usage, { billable: answer.billable });
  const call = { seq: n - 1, modelTier: answer.tier, model: answer.modelId, usage: answer.usage, chargedCredits: priced.chargedCredits, isBillable: priced.isBillable };
  const inline = held && !held.later ? held : null;
  const committed = await db.transaction(async (tx) => {
    if (!inline) await recordCallUsage(tx, host.owner, call, null);
    else {
      const { id, also: settled } = await recordCallUsage(tx, host.owner, call, settlementSql(inline.ref, answer.tier, priced.chargedCredits));
      if (id) await settledAlerts(tx, settled ?? []);
      else await settleCall(tx, inline.ref, answer.tier, priced.chargedCredits);
    }
    return host.recorded ? host.recorded(tx, n, answer) : undefined;
  });
  if (held?.later) settleLater(db, held.ref, answer.tier, priced.chargedCredits);
  committed?.();
}
