import { JobStartInput, JobStatusInput } from '@/server/workspace/jobs/contracts';
import { jobStatus, startJob } from '@/server/workspace/jobs/service';
import { FileDeleteInput, FileWriteInput, SaveToFilesInput, ShellRunInput } from '@/server/workspace/shell/contracts';
import { deleteHomeFile, runShellCommand, saveHomeFileToFiles, writeHomeFile } from '@/server/workspace/shell/service';
import { defineTool } from './registry';

/*
 * The workspace shell, home directory and background jobs (spec 5, Agent tools added by the
 * workspace work), each a thin adapter over server/workspace: the owner's sandbox, the owner's
 * policy (workspaceCli gates commands, writes, deletes and jobs), the owner's Files. What a
 * command prints or a job reports is outside content: it reaches the model wrapped as untrusted
 * data, and taints the run (runtime/taint.ts).
 */

export const shellRun = defineTool({
  name: 'shell_run',
  description:
    'Run a shell command (bash) in the user’s workspace sandbox, in their home directory (/home/user, kept between tasks). Python 3, Node.js, git, curl and jq are there; the network goes through a proxy that refuses private addresses. At most 60 seconds (timeoutSec, default and maximum 60): use job_start for longer work. Returns exitCode, stdout and stderr (long output truncated to its beginning and end).',
  input: ShellRunInput,
  handler: async (db, actor, _task, input) => ({ output: await runShellCommand(db, actor, input) }),
});

export const fileWrite = defineTool({
  name: 'file_write',
  description: 'Create or replace a text file in the user’s home directory (path relative to /home/user, or absolute under it); folders are made as needed.',
  input: FileWriteInput,
  handler: async (db, actor, _task, input) => ({ output: await writeHomeFile(db, actor, input) }),
});

export const fileDelete = defineTool({
  name: 'file_delete',
  description: 'Delete a file or a folder (with everything in it) of the user’s home directory.',
  input: FileDeleteInput,
  handler: async (db, actor, _task, input) => ({ output: await deleteHomeFile(db, actor, input) }),
});

export const saveToFiles = defineTool({
  name: 'save_to_files',
  description: 'Copy a file of the user’s home directory into the user’s Files (where they can download it), optionally under another name. Returns the new file’s id.',
  input: SaveToFilesInput,
  handler: async (db, actor, _task, input) => ({ output: await saveHomeFileToFiles(db, actor, input) }),
});

export const jobStart = defineTool({
  name: 'job_start',
  description:
    'Start background work in the user’s sandbox: either `command` (a shell command that may run longer than 60 seconds) or `coding` {repo: "owner/name", instructions} (a coding agent changes the user’s GitHub repository and opens a pull request; needs the user’s GitHub connection). Returns a jobId: poll it with job_status; this task is also told when the job ends.',
  input: JobStartInput,
  handler: async (db, actor, task, input, run) => ({ output: await startJob(db, actor, task, run.runId, input) }),
});

export const jobStatusTool = defineTool({
  name: 'job_status',
  description: 'The state of a background job started with job_start: status (running, succeeded, failed), progress, the end of its output, and its result (a coding job: the pull request).',
  input: JobStatusInput,
  handler: async (db, actor, _task, input) => ({ output: await jobStatus(db, actor, input) }),
});

export const shellTools = [shellRun, fileWrite, fileDelete, saveToFiles, jobStart, jobStatusTool];
