import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '@/db/client';
import { accounts, modelSettings } from '@/db/schema';
import { invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { sealJson } from '@/server/secrets/sealed';
import { ADMIN_CLI, recordAudit } from '@/server/audit/record';
import { assertOperates, type AccountOperator } from '@/server/accounts/operator';
import { parseBaseUrl } from './base-url';
import { isModelTier, modelTiers } from './tiers';

/** The purpose a sealed key is bound to: a key copied into another account's or tier's row does not open. */
export const apiKeyPurpose = (accountId: string, tier: string) => `model-api-key:${accountId}:${tier}`;

/**
 * Console job (admin CLI `set-model`, the console's models page): the model that serves one tier for one account, replacing
 * what was set before. `model` "default" removes the setting, so the environment serves the
 * tier again. With `baseUrl` the account's own endpoint serves it, with `apiKey` (sealed) if
 * given; a key without a base URL is refused, since the deployment's endpoint uses the
 * deployment's key. Recorded as `model.changed` (never the key: only whether there is one, `ownKey`).
 */
export async function setAccountModel(db: Db, accountId: string, tier: string, model: string, baseUrl?: string, apiKey?: string, by: AccountOperator = ADMIN_CLI) {
  assertOperates(by, accountId);
  const problems: FieldProblem[] = [];
  const validTier = isModelTier(tier) ? tier : null;
  if (!validTier) problems.push({ field: '--tier', problem: `must be one of ${modelTiers.join(', ')}` });
  const modelId = model.trim();
  const removing = modelId === 'default';
  if (!modelId) problems.push({ field: '--model', problem: 'must be a model id' });
  else if (modelId.length > 256 || /[\u0000-\u001f\u007f]/.test(modelId)) problems.push({ field: '--model', problem: 'must be at most 256 characters without control characters' });
  let url: string | null = null;
  if (baseUrl !== undefined) {
    const parsed = parseBaseUrl(baseUrl);
    if ('problem' in parsed) problems.push({ field: '--base-url', problem: parsed.problem });
    else url = parsed.url;
  }
  const key = apiKey?.trim();
  if (apiKey !== undefined && !key) problems.push({ field: '--api-key', problem: 'must not be empty' });
  if (key && baseUrl === undefined) problems.push({ field: '--api-key', problem: 'needs --base-url (the deployment endpoint uses STEWARD_MODEL_API_KEY)' });
  if (removing && (baseUrl !== undefined || apiKey !== undefined)) problems.push({ field: '--model', problem: '"default" removes the setting and takes no --base-url or --api-key' });
  if (problems.length || !validTier) throw invalidFields(problems);

  const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');

  const shown = (r: { model: string; baseUrl: string | null; apiKeySealed: string | null } | undefined) =>
    r ? { tier: validTier, model: r.model, baseUrl: r.baseUrl, ownKey: r.apiKeySealed !== null } : { tier: validTier, model: null, baseUrl: null, ownKey: false };
  const audit = async (tx: Tx, before: ReturnType<typeof shown>, after: ReturnType<typeof shown>) =>
    recordAudit(tx, by, 'model.changed', { type: 'model_tier', id: validTier }, { accountId, before, after });
  const current = (tx: Tx) => tx.select().from(modelSettings).where(and(eq(modelSettings.accountId, accountId), eq(modelSettings.tier, validTier))).for('update');

  if (removing) {
    await db.transaction(async (tx) => {
      const [before] = await current(tx);
      await tx.delete(modelSettings).where(and(eq(modelSettings.accountId, accountId), eq(modelSettings.tier, validTier)));
      await audit(tx, shown(before), shown(undefined));
    });
    return { accountId, tier: validTier, model: null, baseUrl: null, hasApiKey: false };
  }
  const values = {
    model: modelId,
    baseUrl: url,
    apiKeySealed: key ? await sealJson(db, key, apiKeyPurpose(accountId, validTier)) : null,
  };
  await db.transaction(async (tx) => {
    const [before] = await current(tx);
    await tx
      .insert(modelSettings)
      .values({ accountId, tier: validTier, ...values })
      .onConflictDoUpdate({ target: [modelSettings.accountId, modelSettings.tier], set: { ...values, updatedAt: new Date() } });
    await audit(tx, shown(before), shown(values));
  });
  return { accountId, tier: validTier, model: modelId, baseUrl: url, hasApiKey: Boolean(key) };
}
