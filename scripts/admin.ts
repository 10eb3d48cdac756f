/**
 * Console jobs for the operator (the hosted console at /console does the same for one account,
 * through the same services). Prints exactly one JSON line on stdout.
 *   npm run --silent admin -- create-account --name NAME
 *   npm run --silent admin -- kill-switch on|off --account ID
 *   npm run --silent admin -- register-certificate --account ID --public-key FILE
 *   npm run --silent admin -- revoke-certificate --kid KID
 *   npm run --silent admin -- set-rate-limits --account ID --reads N --writes N
 *   npm run --silent admin -- create-service-key --account ID
 *   npm run --silent admin -- revoke-service-key --key sk_live_... | --id KEY_ID
 *   npm run --silent admin -- import-trace --tenant ID --file TRACE.json
 *   npm run --silent admin -- set-hosted-domain --account ID --domain D
 *   npm run --silent admin -- runs [--status S] [--function ID] [--older-than 2h] [--newer-than 7d] [--limit N]
 *   npm run --silent admin -- run --id RUN_ID
 *   npm run --silent admin -- run cancel --id RUN_ID     (also: runs cancel --id)
 *   npm run --silent admin -- run replay --id RUN_ID     (a failed run again, from its failed step)
 *   npm run --silent admin -- set-model --account ID --tier T --model M|default [--base-url URL [--api-key KEY]]
 *   npm run --silent admin -- set-approval-lock --account ID [--organization ID] --action TYPE (--mode MODE [--window MIN] | --clear)
 *   npm run --silent admin -- set-limits --account ID [--run-max-model-calls N] [--run-max-tool-calls N] [--task-tree-max N]
 *                                        [--user-max-concurrent-runs N] [--browsers-per-account N]   (N or "default")
 *   npm run --silent admin -- set-budget --account ID [--organization ID | --team ID | --user ID] --credits N [--period day|week|month|none] [--member-credits N]
 *   npm run --silent admin -- top-up --budget ID --credits N
 *   npm run --silent admin -- budgets --account ID
 *   npm run --silent admin -- assign-phone-line --request ID --number E164 [--channels sms,whatsapp,imessage,voice]
 *   npm run --silent admin -- dismiss-phone-line --request ID [--reason TEXT]
 *   npm run --silent admin -- add-console-member --account ID --email E [--role owner|developer|viewer]
 *   npm run --silent admin -- remove-console-member --account ID --email E
 *   npm run --silent admin -- console-members --account ID
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connect, type Db } from '../db/client';
import { applyMigrations } from '../db/migrate';
import {
  createAccount,
  registerCertificate,
  revokeCertificate,
  setKillSwitch,
  setRateLimits,
} from '../server/accounts/service';
import { eq } from 'drizzle-orm';
import { accounts } from '../db/schema';
import { AppError } from '../server/http/errors';
import { createServiceKey, revokeServiceKey } from '../server/prompts/service-keys';
import { recordTrace } from '../server/prompts/traces';
import { cancelRun, listRuns, replayRun, runDetail } from '../server/executor/admin';
import { setHostedDomain } from '../server/hosted/accounts';
import { setAccountModel } from '../server/models/settings';
import { setApprovalLock } from '../server/policy/approval-locks';
import { setSegmentFromCli } from '../server/policy/segments-cli';
import { setAccountLimits } from '../server/accounts/limits';
import { listBudgetsFromCli, setBudgetFromCli, topUpFromCli } from '../server/budgets/cli';
import { assignPhoneLine, dismissPhoneLine } from '../server/channels/phone-lines';
import { ADMIN_CLI } from '../server/audit/record';
import { addConsoleMember, listConsoleMembers, removeConsoleMember } from '../server/console/members';
import type { TraceInput } from '../server/prompts/traces-contracts';
import { selectDatabase } from './database';

type Command = (db: Db, args: Record<string, string | undefined>, positional: string[]) => Promise<unknown>;

const need = (args: Record<string, string | undefined>, name: string) => {
  const v = args[name];
  if (!v) throw new AppError(400, 'bad_request', `--${name} is required`);
  return v;
};
const optionalInt = (v: string | undefined, name: string) => {
  if (v === undefined || v === 'default') return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new AppError(400, 'bad_request', `--${name} must be a positive integer or "default"`);
  return n;
};

/** A limit's flag: a positive integer sets the account's override, `default` removes it, absent leaves it. */
const limitFlag = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  if (v === 'default') return null;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new AppError(400, 'bad_request', `--${name} must be a positive integer or "default"`);
  return n;
};
const LIMIT_FLAGS = {
  runMaxModelCalls: 'run-max-model-calls',
  runMaxToolCalls: 'run-max-tool-calls',
  taskTreeMax: 'task-tree-max',
  userMaxConcurrentRuns: 'user-max-concurrent-runs',
  browsersPerAccount: 'browsers-per-account',
} as const;

/** `run cancel --id` and `run replay --id` (the same under `runs`). */
const runAction: Command = (db, a, pos) => {
  if (pos[0] === 'cancel' && pos.length === 1) return cancelRun(db, need(a, 'id'));
  if (pos[0] === 'replay' && pos.length === 1) return replayRun(db, need(a, 'id'));
  throw new AppError(400, 'bad_request', `run takes cancel or replay (with --id), not ${pos.join(' ')}`);
};

export const commands: Record<string, Command> = {
  'create-account': (db, a) => createAccount(db, need(a, 'name')),
  'kill-switch': (db, a, pos) => {
    const mode = pos[0];
    if (mode !== 'on' && mode !== 'off') throw new AppError(400, 'bad_request', 'kill-switch takes on or off');
    return setKillSwitch(db, need(a, 'account'), mode === 'on');
  },
  'register-certificate': (db, a) => registerCertificate(db, need(a, 'account'), readFileSync(need(a, 'public-key'), 'utf8')),
  'revoke-certificate': (db, a) => revokeCertificate(db, need(a, 'kid')),
  'create-service-key': (db, a) => createServiceKey(db, need(a, 'account')),
  'revoke-service-key': (db, a) => {
    const key = a.key ?? a.id;
    if (!key) throw new AppError(400, 'bad_request', '--key or --id is required');
    return revokeServiceKey(db, key);
  },
  'import-trace': async (db, a) => {
    const tenant = need(a, 'tenant');
    let trace: unknown;
    try {
      trace = JSON.parse(readFileSync(need(a, 'file'), 'utf8'));
    } catch (e) {
      throw new AppError(400, 'bad_request', `--file: ${(e as Error).message}`);
    }
    const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, tenant));
    if (!account) throw new AppError(404, 'not_found', 'Tenant not found');
    return recordTrace(db, tenant, trace as TraceInput);
  },
  'set-hosted-domain': (db, a) => setHostedDomain(db, need(a, 'account'), need(a, 'domain')),
  runs: (db, a, pos) => (pos.length ? runAction(db, a, pos) : listRuns(db, { status: a.status, functionId: a.function, olderThan: a['older-than'], newerThan: a['newer-than'], limit: a.limit })),
  run: (db, a, pos) => (pos.length ? runAction(db, a, pos) : runDetail(db, need(a, 'id'))),
  'set-rate-limits': (db, a) =>
    setRateLimits(db, need(a, 'account'), { reads: optionalInt(a.reads, 'reads'), writes: optionalInt(a.writes, 'writes') }),
  'set-model': (db, a) => setAccountModel(db, need(a, 'account'), need(a, 'tier'), need(a, 'model'), a['base-url'], a['api-key']),
  'set-approval-lock': (db, a) =>
    setApprovalLock(db, {
      accountId: need(a, 'account'),
      organizationId: a.organization,
      actionType: need(a, 'action'),
      mode: a.mode,
      timeBoxedWindowMin: optionalInt(a.window, 'window'),
      // --clear is a boolean flag: parseArgs gives true when present.
      clear: Boolean(a.clear),
    }),
  'set-segment': (db, a) => setSegmentFromCli(db, a),
  'set-limits': async (db, a) => {
    const changes = Object.fromEntries(Object.entries(LIMIT_FLAGS).map(([key, flag]) => [key, limitFlag(a[flag], flag)]));
    return { ok: true, ...(await setAccountLimits(db, need(a, 'account'), changes)) };
  },
  'set-budget': (db, a) => setBudgetFromCli(db, a),
  'top-up': (db, a) => topUpFromCli(db, a),
  budgets: (db, a) => listBudgetsFromCli(db, a),
  'assign-phone-line': (db, a) => assignPhoneLine(db, { requestId: need(a, 'request'), number: need(a, 'number'), channels: a.channels ?? null }),
  'dismiss-phone-line': (db, a) => dismissPhoneLine(db, { requestId: need(a, 'request'), reason: a.reason ?? null }),
  'add-console-member': (db, a) => addConsoleMember(db, ADMIN_CLI, { accountId: need(a, 'account'), email: need(a, 'email'), role: a.role }),
  'remove-console-member': (db, a) => removeConsoleMember(db, ADMIN_CLI, { accountId: need(a, 'account'), email: need(a, 'email') }),
  'console-members': (db, a) => listConsoleMembers(db, ADMIN_CLI, need(a, 'account')),
};

const OPTIONS = {
  name: { type: 'string' },
  account: { type: 'string' },
  tenant: { type: 'string' },
  'public-key': { type: 'string' },
  kid: { type: 'string' },
  reads: { type: 'string' },
  writes: { type: 'string' },
  file: { type: 'string' },
  id: { type: 'string' },
  status: { type: 'string' },
  key: { type: 'string' },
  domain: { type: 'string' },
  tier: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  organization: { type: 'string' },
  action: { type: 'string' },
  mode: { type: 'string' },
  window: { type: 'string' },
  clear: { type: 'boolean' },
  function: { type: 'string' },
  'older-than': { type: 'string' },
  'newer-than': { type: 'string' },
  limit: { type: 'string' },
  chat: { type: 'string' },
  task: { type: 'string' },
  organizations: { type: 'string' },
  teams: { type: 'string' },
  users: { type: 'string' },
  user: { type: 'string' },
  team: { type: 'string' },
  budget: { type: 'string' },
  credits: { type: 'string' },
  period: { type: 'string' },
  'member-credits': { type: 'string' },
  'run-max-model-calls': { type: 'string' },
  'run-max-tool-calls': { type: 'string' },
  'task-tree-max': { type: 'string' },
  'user-max-concurrent-runs': { type: 'string' },
  'browsers-per-account': { type: 'string' },
  request: { type: 'string' },
  number: { type: 'string' },
  channels: { type: 'string' },
  reason: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
} as const;

async function main() {
  const { values, positionals } = parseArgs({ options: OPTIONS, allowPositionals: true, strict: true });
  const [name, ...rest] = positionals;
  const command = name ? commands[name] : undefined;
  if (!command) {
    throw new AppError(400, 'bad_request', `unknown command ${name ?? '(none)'}; one of: ${Object.keys(commands).join(', ')}`);
  }
  // A fulfilled phone line notifies its user: the channels fill that seam. The notice is sent by
  // the sweep of the serving process (this one runs no engine). Loaded only for that command: the
  // wiring imports every channel, which every other command would wait for at start.
  if (name === 'assign-phone-line') (await import('../server/compose')).composeChannels();
  const selected = await selectDatabase();
  try {
    await applyMigrations(selected.url);
    const database = connect(selected.url, { max: 2 });
    try {
      return await command(database.db, values as Record<string, string | undefined>, rest);
    } finally {
      await database.close();
    }
  } finally {
    await selected.stop();
  }
}

main().then(
  (out) => {
    process.stdout.write(JSON.stringify(out) + '\n');
    process.exit(0);
  },
  (e: unknown) => {
    const error = e instanceof AppError ? { status: e.status, error_code: e.code, error: e.message } : { error: String((e as Error)?.message ?? e) };
    process.stdout.write(JSON.stringify({ ok: false, ...error }) + '\n');
    process.exit(1);
  },
);
