import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { driveFiles } from '@/db/schema';
import type { UserActor } from '@/server/access/actor';
import { confirmUpload, createUpload, quotaBytes } from '@/server/files/service';
import { fileStorage } from '@/server/files/storage';
import { AppError } from '@/server/http/errors';
import { SandboxGone } from './channel';
import { SANDBOX_USER, shellConfig } from './config';
import type { FileDeleteInput, FileWriteInput, SaveToFilesInput, ShellRunInput } from './contracts';
import { sandboxFor } from './manager';
import { resolveTaskDispatchMode } from '@/server/policy/autonomy-resolve';
import type { AutonomyMode } from '@/db/schema';
import { assertWorkspaceCli } from './policy';
import { measureWorkspace, roomLeft } from './quota';
import type { CommandResult, UserSandbox } from './sandbox';

/*
 * The shell and the home directory as the agent's tools use them (spec 5): each call acts as
 * the task's owner in the owner's sandbox, started when needed. Commands, writes and deletes
 * need `workspaceCli` (policy.ts); reading a file into the user's Files does not. A sandbox
 * that stopped under a call, or a refused file operation, is answered as an AppError, which the
 * runtime hands the model as a refusal it can act on.
 */

/** Files copied to the user's Files are read whole into memory first: at most this many bytes. */
const SAVE_MAX_BYTES = 100 * 1024 * 1024;

async function inSandbox<T>(actor: UserActor, fn: (s: UserSandbox) => Promise<T>): Promise<T> {
  const sandbox = await sandboxFor(actor.accountId, actor.user.id);
  try {
    return await fn(sandbox);
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (e instanceof SandboxGone) throw new AppError(503, 'shell_unavailable', `The workspace sandbox stopped while this ran (${e.message}); run it again.`);
    throw new AppError(400, 'file_refused', e instanceof Error ? e.message : String(e));
  } finally {
    // The next call's disk figure, measured after this one's writes.
    void measureWorkspace(sandbox.dirs).catch(() => undefined);
  }
}

/** What the model is told about a finished command. */
export function presentRun(r: CommandResult, limitSeconds: number) {
  const notes: string[] = [];
  if (r.timedOut) notes.push(`Stopped after ${limitSeconds} s, the limit for one command: run longer work with job_start and poll it with job_status.`);
  if (r.stoppedForDisk) notes.push('Stopped: the workspace reached its disk quota. Delete files (file_delete) before writing more.');
  else if (/File size limit exceeded/.test(r.stderr)) notes.push('A file reached what is left of the workspace’s disk quota.');
  const kept = (text: string, bytes: number) => Buffer.byteLength(text) < bytes;
  if (kept(r.stdout, r.stdoutBytes) || kept(r.stderr, r.stderrBytes)) notes.push(`Output truncated: ${r.stdoutBytes} bytes of stdout and ${r.stderrBytes} of stderr, their beginning and end shown.`);
  return {
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    durationMs: r.ms,
    stdout: r.stdout,
    stderr: r.stderr,
    ...(notes.length ? { note: notes.join(' ') } : {}),
  };
}

/** shell_run: one command in the user's home, at most 60 seconds (less when an operator lowered it). */
export async function runShellCommand(db: Tx, actor: UserActor, input: z.infer<typeof ShellRunInput>) {
  await assertWorkspaceCli(db, actor);
  const limit = shellConfig().commandSeconds;
  const seconds = Math.min(input.timeoutSec ?? limit, limit);
  return inSandbox(actor, async (s) => presentRun(await s.run(input.command, { timeoutMs: seconds * 1000 }), seconds));
}

/** A home path as the sandbox shows it. */
const shown = (p: string) => path.posix.resolve(SANDBOX_USER.home, p);

/** file_write: creates or replaces a text file (folders made as needed), within the disk quota. */
export async function writeHomeFile(db: Tx, actor: UserActor, input: z.infer<typeof FileWriteInput>) {
  await assertWorkspaceCli(db, actor);
  const bytes = Buffer.from(input.content, 'utf8');
  return inSandbox(actor, async (s) => {
    await roomLeft(s.dirs, bytes.length);
    await s.file({ op: 'write', path: input.path, data: bytes.toString('base64') });
    return { written: true, path: shown(input.path), bytes: bytes.length };
  });
}

/** file_delete: a file or a folder (with what it holds). Allowed over the disk quota: it is how space comes back. */
export async function deleteHomeFile(db: Tx, actor: UserActor, input: z.infer<typeof FileDeleteInput>) {
  await assertWorkspaceCli(db, actor);
  return inSandbox(actor, async (s) => {
    await s.file({ op: 'delete', path: input.path });
    return { deleted: true, path: shown(input.path) };
  });
}

/**
 * save_to_files: copies a home file into the user's Files through the files area (its quota,
 * its storage, local or S3), as an upload the user could have made: created, stored, confirmed.
 * The file is read inside the sandbox, so a link in the home leads nowhere outside it.
 */
export async function saveHomeFileToFiles(db: Tx, actor: UserActor, input: z.infer<typeof SaveToFilesInput>, task: { approvalMode?: AutonomyMode | null; tainted?: boolean } = {}) {
  // "Files in the assistant's own storage" is the autonomy matrix's `files` cell (spec 2): only `auto`
  // saves at once; otherwise, or in a run that read outside content, nothing is written and the model
  // is told to ask the user (as save_contact does with `contacts`; issue 46).
  const { mode } = await resolveTaskDispatchMode(db, actor.user, 'files', [], task.approvalMode ?? null);
  if (mode !== 'auto' || task.tainted) {
    return {
      saved: false as const,
      reason: task.tainted ? 'This task read content from outside the user, so it may not add to their Files on its own.' : `The user reviews changes to their Files (their setting is ${mode}).`,
      next: 'Ask the user (ask_user) whether to save this file to their Files, naming it.',
    };
  }
  const maxBytes = Math.min(SAVE_MAX_BYTES, quotaBytes());
  const read = await inSandbox(actor, (s) => s.file({ op: 'read', path: input.path, maxBytes }));
  const { data, path: full } = read as { data: string; path: string };
  const bytes = Buffer.from(data, 'base64');
  const asDb = db as unknown as Db;
  const name = input.name ?? path.posix.basename(full);
  const { fileId } = await createUpload(asDb, actor, { name, size: bytes.length }, process.env.STEWARD_PUBLIC_URL ?? 'http://localhost');
  const [row] = await db.select({ storageKey: driveFiles.storageKey }).from(driveFiles).where(eq(driveFiles.id, fileId));
  await fileStorage().write(row!.storageKey, bytes);
  const { driveFile } = await confirmUpload(asDb, actor, fileId, { size: bytes.length });
  return { saved: true, fileId: driveFile.id, name: driveFile.name, size: driveFile.size, mimeType: driveFile.mimeType, from: full };
}
