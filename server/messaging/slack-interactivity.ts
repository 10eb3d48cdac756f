import { z } from 'zod';
import type { Db } from '@/db/client';
import { APPROVE_ACTION, decidedMessage, REJECT_ACTION } from '@/server/channels/slack/blocks';
import { BlockActions, ButtonValue } from '@/server/channels/slack/contracts';
import { slackBot } from '@/server/channels/slack/installations';
import { postEphemeral, updateMessage, type Block } from '@/server/channels/slack/web-api';
import { invalidFields } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { logger } from '@/server/logger';
import { decideByButton, type ButtonPress, type PressOutcome } from './button-approvals';
import { markCardDecided, outcomeText } from './channel-approvals';
import { verifiedSlackRequest } from './slack-request';
import { ensureChannelWork } from './channel-work';
import { emptyOk, parseJson, parseWith } from './webhook-body';

/*
 * POST /api/slack/interactivity/{appId} (spec 5): Block Kit button presses of one assistant's app,
 * verified like its events (signature v0, app's signing secret, five minutes; else 401 and nothing
 * changes). An Approve or Reject press becomes a ButtonPress (button-approvals.ts) and is decided
 * before the answer — a database transaction, well inside Slack's 3 seconds — so the cart is
 * released by the time Slack hears back; the message is updated with the outcome right after.
 * A press by anyone but the owner's identity linked through this app, or on anything but the card
 * this app posted to them, changes nothing and only they are told so (an ephemeral line); a press
 * on an outdated card is refused and the card says why.
 */

const Form = z.object({ payload: z.string().min(2).max(900_000) });
const BlocksOf = z.array(z.record(z.string(), z.unknown())).max(50);

export async function slackInteractivity(db: Db, req: ApiRequest, appId: string): Promise<Response> {
  const { app, raw } = await verifiedSlackRequest(db, req, appId, 'interactivity');
  ensureChannelWork(db);
  const form = parseWith(Form, Object.fromEntries(new URLSearchParams(raw)));
  const payload = parseWith(BlockActions, parseJson(form.payload, 'payload'), 'payload');
  const action = payload.actions.find((a) => a.action_id === APPROVE_ACTION || a.action_id === REJECT_ACTION);
  // Other interactions (none are sent by Steward's messages) are acknowledged and ignored.
  if (!action) return emptyOk();
  const value = ButtonValue.safeParse(action.value ? safeJson(action.value) : null);
  if (!value.success) throw invalidFields([{ field: 'payload.actions.0.value', problem: 'is not a Steward approval button' }]);
  const teamId = payload.user.team_id ?? payload.team?.id;
  if (!teamId) throw invalidFields([{ field: 'payload.user.team_id', problem: 'is required' }]);
  // Where the pressed card is: the press counts only on the card this app posted there (button-approvals.ts).
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const ts = payload.container?.message_ts ?? payload.message?.ts;
  const press: ButtonPress = {
    provider: 'slack',
    verifiedBy: 'slack_signature_v0',
    accountId: app.accountId,
    workspaceId: teamId,
    externalUserId: payload.user.id,
    cartId: value.data.cartId,
    contentHash: value.data.contentHash,
    decision: action.action_id === APPROVE_ACTION ? 'approve' : 'reject',
    shownIn: { provider: 'slack', appId: app.id, channel: channel ?? null, ts: ts ?? null },
  };
  const outcome = await decideByButton(db, press);
  const shown = BlocksOf.safeParse((payload.message as { blocks?: unknown } | undefined)?.blocks);
  setImmediate(() => void tell(db, app.id, teamId, press, outcome, channel, ts, shown.success ? (shown.data as Block[]) : []));
  return emptyOk();
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** After the answer: the card shows the outcome, or the presser alone hears why nothing happened. */
async function tell(db: Db, appId: string, teamId: string, press: ButtonPress, outcome: PressOutcome, channel?: string, ts?: string, blocks: Block[] = []): Promise<void> {
  try {
    const bot = await slackBot(db, appId, teamId);
    if (!bot || !channel) return;
    const line = outcomeText(outcome);
    if (!outcome.ok && (outcome.code === 'not_owner' || outcome.code === 'owner_cannot_act' || outcome.code === 'queuing_failed')) {
      await postEphemeral(bot.token, channel, press.externalUserId, line);
      return;
    }
    await markCardDecided(db, press.cartId, 'slack', press.contentHash, line);
    if (ts) await updateMessage(bot.token, channel, ts, line, decidedMessage(blocks, line));
  } catch (err) {
    logger.warn({ err, cartId: press.cartId }, 'slack interactivity: the outcome could not be shown');
  }
}
