import { createApiKey, listApiKeys, revokeApiKey } from '@/server/access/api-keys';
import { CreateApiKeyBody, KeyIdParams } from '@/server/access/contracts';
import { PageQuery } from '@/server/http/pagination';
import { router, userProcedure } from '../init';

/**
 * The person's own API keys. A key made here always acts as its creator (userId is the session's
 * user, whatever their organization role): the secret is in the answer once, never again.
 */
export const apiKeysRouter = router({
  list: userProcedure.input(PageQuery.prefault({})).query(({ ctx, input }) => listApiKeys(ctx.db, ctx.actor, input)),
  create: userProcedure
    .input(CreateApiKeyBody.omit({ userId: true }))
    .mutation(({ ctx, input }) => createApiKey(ctx.db, ctx.actor, { ...input, userId: ctx.actor.user.id })),
  revoke: userProcedure.input(KeyIdParams).mutation(({ ctx, input }) => revokeApiKey(ctx.db, ctx.actor, input.keyId)),
});
