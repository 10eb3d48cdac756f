import { z } from 'zod';
import { createApiKey, deleteApiKey, listApiKeys, revokeApiKey } from '@/server/access/api-keys';
import { CreateApiKeyBody, KeyIdParams } from '@/server/access/contracts';
import { listCertificates, registerCertificate, revokeCertificate } from '@/server/accounts/service';
import { PageQuery } from '@/server/http/pagination';
import { router } from '../init';
import { consoleChange, consoleProcedure } from './console-procedures';

/**
 * The account's credentials (spec 1): API keys (GET/POST/DELETE /api-keys' services, as an
 * account-wide caller: every key of the account is listed, and a key made here is an account key)
 * and the public keys of certificate tokens (the admin CLI's register-certificate and
 * revoke-certificate). A new key's secret is in the answer once, never again.
 */
export const consoleAccessRouter = router({
  keys: consoleProcedure.input(PageQuery.prefault({})).query(({ ctx, input }) => listApiKeys(ctx.db, ctx.actor, input)),
  createKey: consoleChange.input(CreateApiKeyBody.omit({ userId: true })).mutation(({ ctx, input }) => createApiKey(ctx.db, ctx.actor, input)),
  revokeKey: consoleChange.input(KeyIdParams).mutation(({ ctx, input }) => revokeApiKey(ctx.db, ctx.actor, input.keyId)),
  deleteKey: consoleChange.input(KeyIdParams).mutation(({ ctx, input }) => deleteApiKey(ctx.db, ctx.actor, input.keyId)),

  certificates: consoleProcedure.query(({ ctx }) => listCertificates(ctx.db, ctx.actor.accountId, ctx.actor)),
  registerCertificate: consoleChange
    .input(z.object({ publicKeyPem: z.string().trim().min(1, 'is required').max(20_000) }))
    .mutation(({ ctx, input }) => registerCertificate(ctx.db, ctx.actor.accountId, input.publicKeyPem, ctx.actor)),
  revokeCertificate: consoleChange.input(z.object({ kid: z.string().min(1).max(64) })).mutation(({ ctx, input }) => revokeCertificate(ctx.db, input.kid, ctx.actor)),
});
