import { z } from 'zod';
import { REPO_PATTERN } from '@/server/channels/github/config';

/*
 * job_start and job_status (spec 5): a shell command that may run longer than shell_run's
 * 60 seconds, or a coding job handed to a coding agent that works in a checkout of the user's
 * repository and opens a pull request. One object with exactly one of `command` and `coding`
 * (model APIs want an object at the top of a tool's input).
 */

export const CodingInput = z.object({
  repo: z.string().trim().regex(REPO_PATTERN, 'must be owner/name'),
  instructions: z.string().trim().min(1, 'is required').max(20_000),
});

export const JobStartInput = z
  .object({
    command: z.string().min(1).max(20_000).optional().describe('A shell command run in the home directory, in the background'),
    coding: CodingInput.optional().describe('A coding job: the repository (owner/name) and what to change; it ends in a pull request'),
  })
  .refine((i) => (i.command === undefined) !== (i.coding === undefined), { message: 'give exactly one of command and coding', path: ['command'] });

export const JobStatusInput = z.object({ jobId: z.string().trim().min(1).max(64) });
