import { z } from 'zod';
import { autonomyModes } from '@/db/schema';
import { accountSettings, setKillSwitch } from '@/server/accounts/service';
import { setAccountModel } from '@/server/models/settings';
import { modelTiers } from '@/server/models/tiers';
import { consoleModels } from '@/server/console/models';
import { listApprovalLocks, setApprovalLock } from '@/server/policy/approval-locks';
import { TierCapabilitiesPatch } from '@/server/policy/capability-contracts';
import { getAccountCapabilities, patchAccountCapabilities } from '@/server/policy/capability-switches';
import { ACTION_TYPES } from '@/server/policy/contracts';
import { getAccountTiers, setAccountTiers } from '@/server/policy/segments';
import { AccountTiersBody } from '@/server/policy/segments-contracts';
import { router } from '../init';
import { consoleChange, consoleProcedure } from './console-procedures';

const ModelBody = z.object({
  tier: z.enum(modelTiers),
  /** A model id, or "default" to give the tier back to the deployment's environment. */
  model: z.string().trim().min(1, 'is required').max(256),
  baseUrl: z.string().trim().min(1).max(2048).optional(),
  apiKey: z.string().trim().min(1).max(4096).optional(),
});

const LockBody = z.object({
  organizationId: z.string().min(1).max(64).optional(),
  actionType: z.enum(ACTION_TYPES),
  mode: z.enum(autonomyModes).optional(),
  timeBoxedWindowMin: z.number().int().min(1).max(10_080).optional(),
  clear: z.boolean().default(false),
});

/**
 * The console's settings of the account (spec 6): model per tier and the default tiers, the kill
 * switch, approval locks and capability switches (the policy ceiling). The same services as the
 * admin CLI (`set-model`, `kill-switch`, `set-approval-lock`) and the REST API
 * (/settings/capabilities, /settings/model-tiers), with the member as the actor.
 */
export const consoleSettingsRouter = router({
  account: consoleProcedure.query(({ ctx }) => accountSettings(ctx.db, ctx.actor.accountId, ctx.actor)),

  models: consoleProcedure.query(({ ctx }) => consoleModels(ctx.db, ctx.actor.accountId, ctx.actor)),
  setModel: consoleChange
    .input(ModelBody)
    .mutation(({ ctx, input }) => setAccountModel(ctx.db, ctx.actor.accountId, input.tier, input.model, input.baseUrl, input.apiKey, ctx.actor)),
  defaultTiers: consoleProcedure.query(({ ctx }) => getAccountTiers(ctx.db, ctx.actor)),
  setDefaultTiers: consoleChange.input(AccountTiersBody).mutation(({ ctx, input }) => setAccountTiers(ctx.db, ctx.actor, input)),

  setKillSwitch: consoleChange.input(z.object({ engaged: z.boolean() })).mutation(({ ctx, input }) => setKillSwitch(ctx.db, ctx.actor.accountId, input.engaged, ctx.actor)),

  locks: consoleProcedure.query(({ ctx }) => listApprovalLocks(ctx.db, ctx.actor.accountId, ctx.actor)),
  setLock: consoleChange.input(LockBody).mutation(({ ctx, input }) =>
    setApprovalLock(
      ctx.db,
      { accountId: ctx.actor.accountId, organizationId: input.organizationId, actionType: input.actionType, mode: input.mode, timeBoxedWindowMin: input.timeBoxedWindowMin ?? null, clear: input.clear },
      ctx.actor,
    ),
  ),

  capabilities: consoleProcedure.query(({ ctx }) => getAccountCapabilities(ctx.db, ctx.actor)),
  setCapabilities: consoleChange.input(z.object({ capabilities: TierCapabilitiesPatch })).mutation(({ ctx, input }) => patchAccountCapabilities(ctx.db, ctx.actor, input.capabilities)),
});
