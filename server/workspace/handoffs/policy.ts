import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { users } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { policyRowsForUser, resolveCapabilities } from '@/server/policy/resolve';

/*
 * The workspace controls a handoff obeys (spec document 2): the `workspaceHandoff` switch, and
 * the handoff domain lists (allowlists intersect, blocklists add up: resolved by the policy
 * service). A listed origin such as example.org covers its subdomains too; the blocklist wins.
 */

export type HandoffPolicy = { enabled: boolean; allowlist: string[] | null; blocklist: string[] };

export async function handoffPolicy(db: Tx, accountId: string, userId: string): Promise<HandoffPolicy> {
  const [user] = await db
    .select({ id: users.id, accountId: users.accountId, organizationId: users.organizationId })
    .from(users)
    .where(eq(users.id, userId));
  if (!user || user.accountId !== accountId) return { enabled: false, allowlist: null, blocklist: [] };
  const order = { account: 0, organization: 1, team: 2 } as const;
  const rows = (await policyRowsForUser(db, user)).sort((a, b) => order[a.level] - order[b.level]);
  const { capabilities, workspaceHandoffDomains } = resolveCapabilities(rows);
  return { enabled: capabilities.workspaceHandoff === 'on', ...workspaceHandoffDomains };
}

const covers = (host: string, origin: string) => host === origin || host.endsWith(`.${origin}`);

/** Why a URL may not be handed off under the policy, or null when it may. */
export function refusalFor(policy: HandoffPolicy, url: string | null): string | null {
  if (!policy.enabled) return 'Handoffs are turned off for this user (workspaceHandoff)';
  if (!url) return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'targetUrl is not a valid URL';
  }
  if (policy.blocklist.some((o) => covers(host, o))) return `${host} is on the handoff blocklist`;
  if (policy.allowlist && policy.allowlist.length && !policy.allowlist.some((o) => covers(host, o))) return `${host} is not on the handoff allowlist`;
  return null;
}

/** 403 `handoff_not_allowed` when the policy refuses the handoff. */
export async function assertHandoffAllowed(db: Tx, accountId: string, userId: string, url: string | null): Promise<void> {
  const why = refusalFor(await handoffPolicy(db, accountId, userId), url);
  if (why) throw new AppError(403, 'handoff_not_allowed', why);
}
