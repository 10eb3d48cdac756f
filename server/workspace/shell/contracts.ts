import { z } from 'zod';
import { MAX_COMMAND_SECONDS } from './config';

/*
 * What the shell and file tools accept (spec 5, Agent tools): the model's input is checked
 * against these before anything runs.
 */

/** A path in the home directory: relative to it, or absolute under /home/user. */
const HomePath = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(1000)
  .refine((p) => !p.includes('\0'), 'must not contain NUL');

export const ShellRunInput = z.object({
  command: z.string().min(1, 'is required').max(20_000),
  timeoutSec: z.number().int().min(1).max(MAX_COMMAND_SECONDS, `must be at most ${MAX_COMMAND_SECONDS}`).optional(),
});

export const FileWriteInput = z.object({ path: HomePath, content: z.string().max(5_000_000).default('') });
export const FileDeleteInput = z.object({ path: HomePath });

export const SaveToFilesInput = z.object({
  path: HomePath,
  name: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((n) => !/[\\/\0]/.test(n), 'must not contain slashes')
    .optional(),
});
