import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import type { TaskRow } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { githubToken } from '@/server/channels/github/connection';
import { githubConfig } from '@/server/channels/github/config';
import { workspaceDirs } from '../browser/launch';
import { assertWorkspaceCli } from '../shell/policy';
import { roomLeft } from '../shell/quota';
import type { JobStartInput, JobStatusInput } from './contracts';
import { jobsDb, launchJob } from './runner';
import { createJob, ownJob, presentJob } from './store';

/*
 * job_start and job_status as the task's owner (spec 5). Starting needs `workspaceCli` (a job
 * is shell work) and room under the disk quota; a coding job also needs GitHub configured and
 * the user's connection. The job runs in the background (runner.ts); job_status reads its record,
 * and the task hears of its end on its own (report.ts).
 */

export async function startJob(db: Tx, actor: UserActor, task: Pick<TaskRow, 'id' | 'modelTier'>, runId: string | null, input: z.infer<typeof JobStartInput>) {
  await assertWorkspaceCli(db, actor);
  await roomLeft(workspaceDirs(actor.accountId, actor.user.id));
  const owner = { accountId: actor.accountId, userId: actor.user.id, taskId: task.id, runId };
  if (input.coding) {
    githubConfig();
    await githubToken(db as unknown as Db, actor.accountId, actor.user.id);
  }
  const background = jobsDb();
  const job = input.coding ? await createJob(db, { ...owner, kind: 'coding', coding: input.coding }) : await createJob(db, { ...owner, kind: 'command', command: input.command! });
  launchJob(background, job, task.modelTier);
  return {
    started: true,
    ...presentJob(job),
    note: 'The job runs in the background: poll it with job_status, or wait (set_alarm or another step); this task is told when it ends.',
  };
}

export async function jobStatus(db: Tx, actor: UserActor, input: z.infer<typeof JobStatusInput>) {
  return presentJob(await ownJob(db, { accountId: actor.accountId, userId: actor.user.id }, input.jobId));
}
