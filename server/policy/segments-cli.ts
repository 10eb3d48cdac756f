import type { Db } from '@/db/client';
import { accounts } from '@/db/schema';
import { eq } from 'drizzle-orm';
import { notFound } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validate';
import { setSegmentByName } from './segments';
import { UpdateSegmentBody } from './segments-contracts';

const tier = (v: string | undefined) => (v === undefined ? undefined : v === 'none' || v === 'default' ? null : v);
const ids = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * `npm run --silent admin -- set-segment --account ID --name NAME [--chat T|none] [--task T|none]
 * [--organizations ID,ID] [--teams ID,ID] [--users ID,ID]`: creates the named segment or changes
 * it (a list given replaces the stored one; `none` clears a default). Same checks as the API.
 */
export async function setSegmentFromCli(db: Db, args: Record<string, string | undefined>) {
  const accountId = args.account;
  const [account] = accountId ? await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)) : [];
  if (!account) throw notFound('Account');
  const input = parseOrThrow(
    UpdateSegmentBody.required({ name: true }),
    {
      name: args.name,
      chat: tier(args.chat),
      task: tier(args.task),
      organizationIds: ids(args.organizations),
      teamIds: ids(args.teams),
      userIds: ids(args.users),
    },
    'options',
  );
  return { ok: true as const, segment: await setSegmentByName(db, account.id, input) };
}
