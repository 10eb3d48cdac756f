import { z } from 'zod';
import { identifierHooks } from '@/server/channels/imessage/number-lookup';
import { CreateIdentifierBody, IdentifierParams, UpdateIdentifierBody } from '@/server/identifiers/contracts';
import { createIdentifier, deleteIdentifier, listIdentifiers, makePrimary, updateIdentifier } from '@/server/identifiers/service';
import { VerifyBody } from '@/server/identifiers/verification-contracts';
import { requestVerification, verifyIdentifier } from '@/server/identifiers/verification';
import { router, userProcedure } from '../init';

/**
 * The person's identifiers: list, add (unverified: only the code proves it), remove, make an
 * email primary, and the one-time-code flow. Here the client address is known (Steward's front
 * sets it), so codes are also counted per address.
 */
export const identifiersRouter = router({
  list: userProcedure.query(({ ctx }) => listIdentifiers(ctx.db, ctx.actor, {})),
  add: userProcedure
    .input(CreateIdentifierBody.pick({ type: true, value: true, label: true }).extend({ type: z.enum(['email', 'phone']) }))
    .mutation(({ ctx, input }) => createIdentifier(ctx.db, ctx.actor, input)),
  remove: userProcedure.input(IdentifierParams).mutation(({ ctx, input }) => deleteIdentifier(ctx.db, ctx.actor, input.identifierId)),
  /** A label, or a verified phone's preferred text platform (the REST PATCH's rules). */
  update: userProcedure.input(IdentifierParams.extend(UpdateIdentifierBody.shape)).mutation(({ ctx, input }) => {
    const { identifierId, ...change } = input;
    return updateIdentifier(ctx.db, ctx.actor, identifierId, change);
  }),
  makePrimary: userProcedure.input(IdentifierParams).mutation(({ ctx, input }) => makePrimary(ctx.db, ctx.actor, input.identifierId)),
  sendCode: userProcedure.input(IdentifierParams).mutation(({ ctx, input }) => requestVerification(ctx.db, ctx.actor, input.identifierId, ctx.clientIp)),
  verify: userProcedure.input(IdentifierParams.extend(VerifyBody.shape)).mutation(({ ctx, input }) => verifyIdentifier(ctx.db, ctx.actor, input.identifierId, input.code, new Date(), identifierHooks)),
});
