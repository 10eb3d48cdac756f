import { budgetSweep } from './budget-sweep';
import { voiceSweep } from './voice-sweep';
import { cartExecute } from './cart-execute';
import { chatTurn, chatTurnEventsSweep } from './chat-turn';
import { cartNotify } from './cart-notify';
import { cartSweep, cartTimeBox } from './cart-timebox';
import { domainRecheck } from './domain-recheck';
import { heartbeat } from './heartbeat';
import { signInSweep } from './sign-in-sweep';
import { taskRun } from './task-run';
import { taskWakeups } from './task-wakeups';
import { webhookDeliver, webhookSweep } from './webhook-deliver';
import { workflowScheduler } from './workflow-scheduler';
import { handoffExpiry } from './handoff-expiry';
import { workspaceSnapshotRetention } from './workspace-snapshot-retention';
import { engineHandoffSweep } from './engine-handoff-sweep';
import { idempotencySweep } from './idempotency-sweep';
import { auditSweep } from './audit-sweep';
import { mailboxPoll, mailboxSync } from './mailbox-sync';
import { calendarPoll, calendarSync } from './calendar-sync';
import { calendarAccessSweep, calendarReminders } from './calendar-reminders';
import { noticeDeliver, noticeSweep } from './notice-deliver';
import { taskTimer } from './task-timer';
import { memoryEmbeddings } from './memory-embeddings';
import { memoryFileTexts } from './memory-file-texts';

/** Every Inngest function Steward serves at /api/inngest. */
export const functions = [heartbeat, domainRecheck, signInSweep, taskRun, taskWakeups, cartExecute, cartTimeBox, cartSweep, cartNotify, webhookDeliver, webhookSweep, workflowScheduler, handoffExpiry, workspaceSnapshotRetention, chatTurn, chatTurnEventsSweep, budgetSweep, engineHandoffSweep, idempotencySweep, auditSweep, mailboxPoll, mailboxSync, calendarPoll, calendarSync, calendarReminders, calendarAccessSweep, noticeDeliver, noticeSweep, taskTimer, memoryEmbeddings, memoryFileTexts, voiceSweep];
