import { randomUUID } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { workflowFirings, type WorkflowFiringRow } from '@/db/schema';
import type { Actor } from '@/server/access/actor';
import { requireUser } from '@/server/access/require-user';
import { defineEndpoint } from '@/server/http/endpoint';
import { AppError, badRequest } from '@/server/http/errors';
import { PageFields, PageQuery, pageInfo, pageWindow } from '@/server/http/pagination';
import { readableSkill } from './access';
import { SkillParams } from './contracts';
import { fire } from './firing';
import { ingestWorkflowEvent } from './triggers/events';

const Firing = z.object({
  id: z.string(),
  triggerKind: z.string(),
  status: z.enum(['queued', 'started', 'dropped', 'replaced', 'skipped']),
  reason: z.string().nullable(),
  taskId: z.string().nullable(),
  userId: z.string(),
  createdAt: z.string(),
});
const presentFiring = (f: WorkflowFiringRow) => ({ id: f.id, triggerKind: f.triggerKind, status: f.status, reason: f.reason, taskId: f.taskId, userId: f.userId, createdAt: f.createdAt.toISOString() });

const CalendarEventBody = z.object({
  type: z.enum(['event.scheduled', 'event.cancelled']),
  event: z.object({
    id: z.string().trim().min(1).max(255),
    title: z.string().max(500).optional(),
    startTime: z.iso.datetime({ offset: true }),
    endTime: z.iso.datetime({ offset: true }).optional(),
    attendees: z.array(z.string().max(320)).max(200).optional(),
    location: z.string().max(500).optional(),
  }),
});

/** POST /skills/{skillId}/run: the manual trigger, for the caller. */
async function runNow(db: Db, actor: Actor, skillId: string) {
  const user = requireUser(actor);
  const skill = await readableSkill(db, actor, skillId);
  if (skill.kind !== 'workflow') throw badRequest('Only a workflow runs', { field: 'skillId' }, 'not_a_workflow');
  const outcome = await db.transaction((tx) => fire(tx, { skillId: skill.id, userId: user.id, triggerKind: 'manual', eventKey: `manual:${randomUUID()}` }));
  if (outcome.status === 'skipped' || outcome.status === 'dropped') {
    throw new AppError(409, 'workflow_not_run', `The workflow did not run: ${outcome.reason}`, { reason: outcome.reason, firingId: outcome.firingId });
  }
  return { ok: true as const, firing: { id: outcome.firingId!, status: outcome.status, reason: outcome.reason, taskId: outcome.taskId } };
}

/** POST /calendar/events: a calendar event of the user, for webhook, timestamp and inactivity triggers. */
async function calendarEvent(db: Db, actor: Actor, body: z.infer<typeof CalendarEventBody>) {
  const user = requireUser(actor);
  await db.transaction((tx) => ingestWorkflowEvent(tx, { accountId: actor.accountId, userId: user.id, type: body.type, id: body.event.id, data: { ...body.event } }));
  return { ok: true as const, accepted: true as const };
}

async function firings(db: Db, actor: Actor, skillId: string, q: z.infer<typeof PageQuery>) {
  const skill = await readableSkill(db, actor, skillId);
  const where = and(eq(workflowFirings.skillId, skill.id), actor.user ? eq(workflowFirings.userId, actor.user.id) : undefined);
  const [rows, [{ n }]] = await Promise.all([
    db.select().from(workflowFirings).where(where).orderBy(desc(workflowFirings.createdAt), desc(workflowFirings.id)).limit(pageWindow(q).limit).offset(pageWindow(q).offset),
    db.select({ n: count() }).from(workflowFirings).where(where),
  ]);
  return { ok: true as const, firings: rows.map(presentFiring), ...pageInfo(q, n) };
}

const tags = ['Skills'];

/** What makes workflows fire by request (docs/workflows.md); cron, condition and the rest run on the engine. */
export const workflowTriggerEndpoints = [
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'POST',
    path: '/skills/{skillId}/run',
    summary: 'Run a workflow now (its manual trigger) for the caller',
    params: SkillParams,
    response: z.object({ ok: z.literal(true), firing: z.object({ id: z.string(), status: z.enum(['queued', 'started', 'dropped', 'replaced', 'skipped']), reason: z.string().nullable(), taskId: z.string().nullable() }) }),
    status: 202,
    errors: [400, 404, 409],
    handle: ({ db, actor, params }) => runNow(db, actor, params.skillId),
  }),
  defineEndpoint({
    tags,
    auth: 'any',
    method: 'GET',
    path: '/skills/{skillId}/firings',
    summary: 'The workflow’s firings, newest first: started (with the task), queued, dropped, replaced or skipped (with why)',
    params: SkillParams,
    query: PageQuery,
    response: z.object({ ok: z.literal(true), firings: z.array(Firing), ...PageFields }),
    errors: [404],
    handle: ({ db, actor, params, query }) => firings(db, actor, params.skillId, query),
  }),
  defineEndpoint({
    tags: ['Calendar'],
    auth: 'user',
    method: 'POST',
    path: '/calendar/events',
    summary: 'A calendar event of the user (scheduled or cancelled), for workflow triggers',
    body: CalendarEventBody,
    response: z.object({ ok: z.literal(true), accepted: z.literal(true) }),
    status: 202,
    handle: ({ db, actor, body }) => calendarEvent(db, actor, body),
  }),
];
