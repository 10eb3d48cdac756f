import type { TaskActivityRow, TaskRow } from '@/db/schema';
import { publicFollowers } from './followers';
import type { PendingCartSummary } from '@/db/queries/carts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A task row as the API shows it; `owner` is the owner's email (the spec's field), ownerId their id; the owner leads `followers` (always one). */
export function toPublicTask(t: TaskRow, ownerEmail: string, pendingCart: PendingCartSummary | null = null) {
  return {
    id: t.id,
    type: 'task' as const,
    title: t.title,
    description: t.description,
    status: t.status,
    owner: ownerEmail,
    ownerId: t.userId,
    assistant: t.assistantId,
    parentTask: t.parentTaskId,
    modelTier: t.modelTier,
    createdBy: t.createdBy,
    tags: t.tags,
    proposalStatus: t.proposalStatus,
    summary: t.summary,
    plan: t.plan,
    waitingOnContacts: t.waitingOnContacts,
    alarm: t.alarmStatus && t.alarmWakeAt ? { wakeAt: t.alarmWakeAt.toISOString(), headline: t.alarmHeadline, status: t.alarmStatus } : null,
    pendingCart,
    approvalMode: t.approvalMode,
    handledBy: t.status === 'handled_by_other' ? (t.handledByAssistantId ?? t.handledByEmail) : null,
    systemHold: t.status === 'paused' ? t.systemHold : null,
    scheduledFor: iso(t.scheduledFor),
    completedAt: iso(t.completedAt),
    readyForReview: t.status === 'awaiting_user_input' && t.readyForReview,
    feedback: t.feedback,
    skills: t.skills,
    followers: publicFollowers(ownerEmail, t.followers),
    onBehalfOf: t.onBehalfOf,
    tainted: t.tainted,
    taintSources: t.taintSources,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/**
 * Messages carry `message{role, content, platform}`; tool calls carry `toolCall`. A `contact`
 * message (an email reply of a person the task waits on) shows with role `contact` and its
 * platform (`email`); it has no delivery state (it came in).
 */
export function toPublicActivity(a: TaskActivityRow) {
  const isTool = a.kind === 'tool';
  return {
    id: a.id,
    type: isTool ? ('tool_call' as const) : ('message' as const),
    createdAt: a.createdAt.toISOString(),
    message: isTool ? null : { role: a.kind, content: a.content, platform: a.platform },
    deliveryState: a.deliveryState,
    files: a.fileIds.map((fileId) => ({ fileId })),
    runId: a.runId,
    toolCall: isTool ? { name: a.toolName ?? '', callId: a.toolCallId, input: a.toolInput ?? null, output: a.toolOutput ?? null } : null,
  };
}
