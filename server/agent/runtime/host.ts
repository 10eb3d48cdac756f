import type { ModelMessage } from 'ai';
import type { Db, Tx } from '@/db/client';
import type { TaintSource, TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import type { CallOwner } from '@/server/models/model-calls';
import type { ModelTier } from '@/server/models/tiers';
import type { StewardUsage } from '@/server/models/usage';
import type { Reservation } from '@/server/budgets/reserve';
import type { RunEnd, RunEnded } from './end-run';
import type { RunLimits } from './start-run';
import type { ToolOutcome, ToolRegistry } from './tools/registry';

/*
 * The agent loop has two hosts: a task run (task-host.ts) and a chat turn (chat-host.ts, with the
 * chats in server/chats/, as it writes their rows). The loop (loop.ts), its model step
 * (model-step.ts) and its tool step (tool-step.ts) are written once: the kill switch, the budget
 * reservation and settlement, the usage row, taint before the model reads, the run limits, the
 * refusal of a bad call. A host says only what differs: which rows the run is (and whether it still
 * runs), what the model reads, where the answer goes (a task's activities; a chat's streamed events
 * and reply), what ends it, and the subject its tools receive (the TaskRow of a task run, the
 * ChatRef of a chat turn).
 */

export type ToolCallRequest = { toolCallId: string; toolName: string; input: unknown };

/** What the model reads on one call, the outside sources among it, and (a task run) how many of the user's messages it holds. */
export type ModelContext = { system: string; messages: ModelMessage[]; taint: TaintSource[]; seenUserMessages?: number };

/** A run or turn found running, ready for a model call: its owner's actor, the account and tier the model is resolved for. */
export type OpenedCall = { actor: UserActor; accountId: string; tier: ModelTier; effort?: string | null };

/** Where the answer goes while the model writes it (a chat turn's events); a host without one gets the answer when the call ends. */
export type AnswerStream = {
  /** Before the first delta (a chat turn's `restarted` and `thinking` events). */
  begin(): Promise<void>;
  delta(text: string): void;
  /** After the last delta: what is still buffered is written. */
  end(): Promise<void>;
};

export type ModelHost<Opened extends OpenedCall = OpenedCall> = {
  /** The function id the model call's telemetry names. */
  telemetry: 'task-run' | 'chat-turn';
  /** Whose usage row the call writes (server/models/model-calls.ts). */
  owner: CallOwner;
  /** The budget reservation's name for model call `n` (from 1): a retried step reserves once. */
  callRef(n: number): string;
  /**
   * Reads the run or turn with the reservation folded into that read (one round trip): nothing is
   * reserved for a run that no longer runs. `reserving` false (bench/trust.ts only) reads without it.
   */
  reserve(db: Db, ref: string, now: Date, reserving: boolean): Promise<Reservation>;
  /** The run or turn, if it still runs and its owner can act. Reads only: it runs while the reservation is being made (model-step.ts). */
  open(db: Db): Promise<Opened | { stopped: string }>;
  /** What the model reads now. Reads only, like open: a refused reservation leaves it unused. */
  context(db: Db, opened: Opened, now: Date): Promise<ModelContext>;
  /** Records the outside content the model is about to read (a task run taints its task and run); absent: the host keeps no mark. */
  noteContextTaint?(db: Db, opened: Opened, taint: TaintSource[]): Promise<void>;
  /** Where the answer streams to, for model call `n`. */
  stream?(db: Db, n: number): AnswerStream;
  /** In the usage row's transaction, after it: what else the call leaves (a chat turn's tool-calls event); returns what to do once committed. */
  recorded?(tx: Tx, n: number, answer: { toolCalls: ToolCallRequest[] }): Promise<(() => void) | void>;
};

/** One tool call of model call `n`, at place `i`; `text` is what the model wrote with the calls (given with the first). */
export type ToolCallAt = { n: number; i: number; call: ToolCallRequest; text: string; seenUserMessages?: number };

/** Whether the run goes on after this tool call; `frozen` when the account's kill switch stopped it before the call. */
export type ToolStep = { endsRun: boolean; frozen?: boolean };

/** A tool step that may go ahead: the subject its tool receives, and whose rights it acts with. */
export type ToolGo<Subject> = {
  subject: Subject;
  /** The run's (or turn's) id: the tool's ToolRun, and the agent credential of the owner's actor. */
  runId: string;
  owner: Pick<TaskRow, 'accountId' | 'userId' | 'id'>;
  /** Whether a message of the user arrived that the model call did not read (a task run); a run-ending call is then undone. */
  late?: () => Promise<boolean>;
};

export type ToolHost<Subject> = {
  /** Locks the run or turn for the step: a ToolStep when nothing is to be done (it no longer runs, or this call is recorded already). */
  begin(tx: Tx, at: ToolCallAt): Promise<ToolStep | ToolGo<Subject>>;
  /** What the model is told when the owner can no longer act. */
  ownerGone: ToolOutcome;
  /** Records the outside source a tool's result brought in (a task run taints its task and run). */
  noteToolTaint?(tx: Tx, go: ToolGo<Subject>, source: TaintSource): Promise<void>;
  /** Records the call and its outcome; returns what to do once committed (a chat turn publishes its event). */
  record(tx: Tx, go: ToolGo<Subject>, at: ToolCallAt, outcome: ToolOutcome): Promise<(() => void) | void>;
};

/** The step that closes a run or turn: its id and what it does. */
export type Closing = { id: string; run: () => Promise<RunEnded> };

export type LoopHost<Opened extends OpenedCall, Subject> = ModelHost<Opened> &
  ToolHost<Subject> & {
    /** What the run may do (spec 5, Limits), fixed when it started. */
    limits: RunLimits;
    /** The run's tools, built inside each step that needs them. */
    tools(db: Db): Promise<ToolRegistry<Subject>>;
    /** How the run or turn is closed for this end; null: there is nothing to close (it was stopped). */
    close(db: Db, end: RunEnd, n: number, spent: { usage: StewardUsage; modelId: string | null }): Closing | null;
  };
