import { z } from 'zod';
import { ExceptionBody, MatrixPatchBody } from '@/server/policy/autonomy-contracts';
import { createRecipientException, deleteRecipientException, getSupervisionMatrix, listRecipientExceptions, patchSupervisionMatrix, resetSupervisionMatrix } from '@/server/policy/autonomy';
import { getProfile, markOnboarded, updateProfile } from '@/server/users/profile';
import { UpdateProfileBody } from '@/server/users/profile-contracts';
import { getScheduling, putScheduling } from '@/server/users/scheduling';
import { PutSchedulingBody } from '@/server/users/scheduling-contracts';
import { router, userProcedure } from '../init';

/**
 * Settings of the signed-in person: profile (names, timezone, notification preferences through
 * PATCH /profile's service), working hours, and the autonomy matrix with its recipient
 * exceptions, always for themself (the services refuse anyone else's).
 */
export const settingsRouter = router({
  profile: userProcedure.query(({ ctx }) => getProfile(ctx.db, ctx.actor)),
  updateProfile: userProcedure.input(UpdateProfileBody).mutation(({ ctx, input }) => updateProfile(ctx.db, ctx.actor, input)),
  scheduling: userProcedure.query(({ ctx }) => getScheduling(ctx.db, ctx.actor, ctx.actor.user.id)),
  putScheduling: userProcedure.input(PutSchedulingBody).mutation(({ ctx, input }) => putScheduling(ctx.db, ctx.actor, ctx.actor.user.id, input)),
  markOnboarded: userProcedure.mutation(({ ctx }) => markOnboarded(ctx.db, ctx.actor)),
  matrix: userProcedure.query(({ ctx }) => getSupervisionMatrix(ctx.db, ctx.actor, ctx.actor.user.id)),
  patchMatrix: userProcedure.input(MatrixPatchBody).mutation(({ ctx, input }) => patchSupervisionMatrix(ctx.db, ctx.actor, ctx.actor.user.id, input)),
  resetMatrix: userProcedure.mutation(({ ctx }) => resetSupervisionMatrix(ctx.db, ctx.actor, ctx.actor.user.id)),
  exceptions: userProcedure.query(({ ctx }) => listRecipientExceptions(ctx.db, ctx.actor, ctx.actor.user.id)),
  addException: userProcedure.input(ExceptionBody).mutation(({ ctx, input }) => createRecipientException(ctx.db, ctx.actor, ctx.actor.user.id, input)),
  removeException: userProcedure.input(z.object({ exceptionId: z.string().min(1).max(100) })).mutation(({ ctx, input }) => deleteRecipientException(ctx.db, ctx.actor, ctx.actor.user.id, input.exceptionId)),
});
