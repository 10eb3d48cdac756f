import { ConfirmBody, FileParams, UploadBody } from '@/server/files/contracts';
import { z } from 'zod';
import { listOwnFiles } from '@/server/files/list';
import { confirmUpload, createUpload } from '@/server/files/service';
import { PageQuery } from '@/server/http/pagination';
import { router, userProcedure } from '../init';

/**
 * Attaching files from the hosted app: the files service's three-step upload. `upload` returns the
 * signed URL the browser PUTs the bytes to (on this site's configured origin), `confirm` records
 * their size; the file id then goes with a task or chat message.
 */
export const filesRouter = router({
  /** The Files page: the person's own uploaded files, newest first. */
  list: userProcedure.input(PageQuery.extend({ search: z.string().trim().max(200).optional() }).prefault({})).query(({ ctx, input }) => listOwnFiles(ctx.db, ctx.actor, input)),
  upload: userProcedure.input(UploadBody).mutation(({ ctx, input }) => createUpload(ctx.db, ctx.actor, input, ctx.site.origin)),
  confirm: userProcedure.input(FileParams.extend(ConfirmBody.shape)).mutation(({ ctx, input: { fileId, ...body } }) => confirmUpload(ctx.db, ctx.actor, fileId, body)),
});
