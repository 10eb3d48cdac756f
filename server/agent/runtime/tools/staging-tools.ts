import { z } from 'zod';
import type { Tx } from '@/db/client';
import { eq } from 'drizzle-orm';
import { assistants, type TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import type { StagedDispatch } from '@/server/approvals/contracts';
import { stageDispatch } from '@/server/approvals/staging';
import { messagePlatforms as MESSAGE_PLATFORMS } from '@/db/schema/channel-names';
import { invalidFields } from '@/server/http/errors';
import { resolveTaskDispatchMode, type ActionType } from '@/server/policy/autonomy-resolve';
import { defineTool, type ToolOutcome, type ToolRun } from './registry';
import type { Db } from '@/db/client';
import { readableFile } from '@/server/files/service';
import { effectiveType } from '@/server/files/extract';

/*
 * The staging tools (spec document 4, Tools): nothing leaves here. Each adds a dispatch to the
 * run's open cart, as the task's owner, through the approvals area's staging service; the cart is
 * released when the run ends, as the owner's autonomy settings say. The model is told it is
 * staged, not sent, and how it will be released, so it never reports a send that has not happened.
 */

const Email = z.email({ message: 'must be an email address' }).max(320);
const Emails = (what: string) => z.array(Email).max(50, `must list at most 50 ${what}`);

const RELEASE: Record<'auto' | 'time-boxed' | 'manual', string> = {
  auto: 'It is sent when this run ends (the user lets this kind of action go out on its own), after a short undo window if they set one.',
  'time-boxed': 'When this run ends the user gets a review window; unless they stop it, it then goes out (or is dropped, as they chose).',
  manual: 'It waits for the user’s approval when this run ends: end the run without claiming it was sent (answer in text, or ask_user).',
};

export async function stage(db: Tx, actor: UserActor, task: TaskRow, run: ToolRun, input: StagedDispatch): Promise<ToolOutcome> {
  const staged = await stageDispatch(db, actor, task, run.runId, input);
  const recipients = [...(input.to ?? []), ...(input.cc ?? []), ...(input.bcc ?? [])];
  const { mode } = await resolveTaskDispatchMode(db, actor.user, input.actionType as ActionType, recipients, task.approvalMode ?? null);
  // The platform holds it at the run's end (approvals/hold.ts); the model is told so now, not surprised later.
  const held = task.tainted && mode !== 'manual';
  return {
    output: {
      staged: true,
      sent: false,
      cartId: staged.cartId,
      dispatchIndex: staged.index,
      release: held ? 'manual' : mode,
      note: held
        ? `Staged, not sent. This task read content from outside the user, so unless it goes only to the user (or to addresses they trust), it waits for the user’s approval when this run ends. ${RELEASE.manual} You are told the outcome in a later run.`
        : `Staged, not sent. ${RELEASE[mode]} You are told the outcome in a later run.`,
    },
  };
}

export const sendEmail = defineTool({
  name: 'send_email',
  description:
    'Write an email. It is staged, not sent at once: when this run ends it is released as the user’s autonomy settings say (at once, after a review window, or once the user approves), and you are told the outcome later. ' +
    'asUser: true sends it from the user’s own address (usually needs their approval); otherwise it comes from your own address. ' +
    'attachments: fileIds of the user’s files to attach (as attached to the task or named by the user).',
  input: z.object({
    to: Emails('recipients').min(1, 'must name at least one recipient'),
    cc: Emails('recipients').optional(),
    bcc: Emails('recipients').optional(),
    subject: z.string().trim().min(1, 'must not be empty').max(998),
    body: z.string().min(1, 'must not be empty').max(100_000),
    asUser: z.boolean().optional(),
    attachments: z.array(z.string().trim().min(1).max(100)).max(10, 'must list at most 10 files').optional(),
  }),
  handler: async (db, actor, task, input, run) =>
    stage(db, actor, task, run, {
      type: 'email',
      platform: 'email',
      actionType: input.asUser ? 'email_as_user' : 'email_as_assistant',
      to: input.to,
      cc: input.cc ?? [],
      bcc: input.bcc ?? [],
      subject: input.subject,
      body: input.body,
      files: await attachedFiles(db, actor, input.attachments ?? []),
      description: `Email ${input.asUser ? 'as the user' : 'from the assistant'} to ${input.to.join(', ')}`,
    }),
});

/**
 * send_email's attachments: files the user may open (their own, or shared with them through a
 * task), ready, each shown on the staged email with its name, type and size. Any other id is
 * refused as "not found", whoever's it is: the refusal names nothing.
 */
async function attachedFiles(db: Tx, actor: UserActor, ids: string[]) {
  const files = [];
  for (const id of [...new Set(ids)]) {
    const f = await readableFile(db as unknown as Db, actor, id);
    if (f.status !== 'ready') throw invalidFields([{ field: 'attachments', problem: `${id} is still being uploaded` }]);
    files.push({ fileId: f.id, filename: f.name, mimeType: effectiveType(f.mimeType, f.name), size: f.size });
  }
  return files;
}

export const sendMessage = defineTool({
  name: 'send_message',
  description:
    `Send a text message on ${MESSAGE_PLATFORMS.join(', ')} to one recipient (a phone number in E.164 for sms, whatsapp and imessage; a user or channel id for slack and teams). ` +
    'Like send_email it is staged and released when this run ends, as the user’s autonomy settings say. ' +
    'attachments: fileIds of the user’s files to send with it (sms: up to 10, whatsapp: 1, together at most 5 MB; slack and telegram: up to 10; imessage: 1, at most 5 MB, to one person; teams carries none yet).',
  input: z.object({
    platform: z.enum(MESSAGE_PLATFORMS, { message: `must be one of ${MESSAGE_PLATFORMS.join(', ')}` }),
    to: z.string().trim().min(1, 'must not be empty').max(320),
    body: z.string().min(1, 'must not be empty').max(10_000),
    attachments: z.array(z.string().trim().min(1).max(100)).max(10, 'must list at most 10 files').optional(),
  }),
  handler: async (db, actor, task, input, run) =>
    stage(db, actor, task, run, {
      type: 'message',
      platform: input.platform,
      actionType: 'messaging',
      to: [input.to],
      body: input.body,
      files: await attachedFiles(db, actor, input.attachments ?? []),
      description: `${input.platform} message to ${input.to}`,
    }),
});

/** The assistant's opening line when place_call names no script: who is calling, for whom, and why. */
async function openingLine(db: Tx, actor: UserActor, task: TaskRow, purpose: string, asUser: boolean): Promise<string> {
  const [assistant] = await db.select({ name: assistants.name }).from(assistants).where(eq(assistants.id, task.assistantId));
  const user = actor.user.name?.trim() || actor.user.email;
  const reason = purpose.replace(/[.\s]+$/, '');
  return asUser ? `Hello, I am calling on behalf of ${user} about ${reason}.` : `Hello, this is ${assistant?.name ?? 'an assistant'}, ${user}'s assistant. I am calling about ${reason}.`;
}

export const placeCall = defineTool({
  name: 'place_call',
  description:
    'Phone someone from your own number. Staged like send_email: placed when this run ends, as the user’s autonomy settings say (a call as the user usually needs their approval), after a short undo window if they set one. ' +
    'When a person answers, you say `script` (or, without one, a line naming you, the user and the purpose) and listen to their answer; an answering machine gets the same words as a voicemail. ' +
    'to: the number in E.164 (+ and the country code). asUser: true when you speak for the user (voice_call_as_user) rather than as their assistant. ' +
    'The bounds the user approves with the call: mayAgree, what you may agree to on it (e.g. "a time up to 30 minutes later"; without it you agree to nothing); referBack, what you must leave to the user (asked for, noted, not decided); ' +
    'onMachine, "voicemail" (default: leave your words as a message) or "hangup" (leave no message). ' +
    'What came of the call (answered, voicemail, no answer, busy, failed) and what they said come back to this task as a message that wakes it: do not complete the task before then.',
  input: z.object({
    to: z
      .string()
      .trim()
      .transform((v) => v.replace(/[\s().-]/g, ''))
      .pipe(z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164 form (+ and the country code)')),
    purpose: z.string().trim().min(1, 'must not be empty').max(500),
    script: z.string().trim().min(1, 'must not be empty').max(3_000).optional(),
    asUser: z.boolean().optional(),
    mayAgree: z.string().trim().min(1, 'must not be empty').max(1_000).optional(),
    referBack: z.string().trim().min(1, 'must not be empty').max(1_000).optional(),
    onMachine: z.enum(['voicemail', 'hangup'], { message: 'must be voicemail or hangup' }).optional(),
  }),
  handler: async (db, actor, task, input, run) => {
    const asUser = input.asUser ?? false;
    // The bounds travel in the dispatch's payload: they are part of what the user approves (the
    // cart's content hash covers them) and what delivery hands the live call (approvals/delivery.ts).
    const bounds = {
      ...(input.mayAgree ? { mayAgree: input.mayAgree } : {}),
      ...(input.referBack ? { referBack: input.referBack } : {}),
      ...(input.onMachine ? { onMachine: input.onMachine } : {}),
    };
    const staged = await stage(db, actor, task, run, {
      type: 'call',
      platform: 'voice',
      actionType: asUser ? 'voice_call_as_user' : 'voice_call_as_assistant',
      to: [input.to],
      body: input.script ?? (await openingLine(db, actor, task, input.purpose, asUser)),
      payload: { purpose: input.purpose, asUser, ...bounds },
      description: `Phone call ${asUser ? 'for the user' : 'from the assistant'} to ${input.to}: ${input.purpose}${input.mayAgree ? `; may agree to ${input.mayAgree}` : ''}${input.onMachine === 'hangup' ? '; no voicemail' : ''}`,
    });
    const out = staged.output as { note: string };
    return { ...staged, output: { ...out, note: `${out.note} Once placed, the call’s outcome and transcript reach this task as a new message.` } };
  },
});

// create_calendar_event and the other calendar writes: calendar-tools.ts.
export const stagingTools = [sendEmail, sendMessage, placeCall];
