import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { assistants, users } from '@/db/schema';
import type { Connection } from '../adapter';
import type { TeamsBotConfig } from './config';
import type { TeamsPerson } from './directory';

/*
 * The deployment's Teams bot as the port's connections. There is one bot (TEAMS_CLIENT_ID) for
 * every account: its webhook's connection names no assistant, and each event is the
 * connection of the user who wrote (their primary assistant, in their account). Every connection
 * has the same id, `teams`: it keys redelivered activities and approval posts as before the port.
 * People are linked through a connected tenant's directory, not through the bot (linkedThrough null).
 */

export const TEAMS_CONNECTION_ID = 'teams';

const connectionOf = (cfg: TeamsBotConfig, accountId: string, assistantId: string): Connection => ({
  id: TEAMS_CONNECTION_ID,
  channel: 'teams',
  accountId,
  assistantId,
  externalId: cfg.appId,
  name: 'Microsoft Teams',
  linkedThrough: null,
});

/** The webhook's connection: the bot itself, for no account yet (each event says whose it is). */
export const webhookConnection = (cfg: TeamsBotConfig): Connection => connectionOf(cfg, '', '');

/** The connection of a linked user's events: their primary assistant, or null when they have none. */
export async function personConnection(db: Db, cfg: TeamsBotConfig, person: TeamsPerson): Promise<Connection | null> {
  const [user] = await db.select({ assistantId: users.primaryAssistantId }).from(users).where(eq(users.id, person.userId));
  return user?.assistantId ? connectionOf(cfg, person.accountId, user.assistantId) : null;
}

/** The assistant's connection: the bot, when it is configured, for the assistant's account. */
export async function assistantConnection(db: Db, cfg: TeamsBotConfig, assistantId: string): Promise<Connection | null> {
  const [row] = await db.select({ accountId: assistants.accountId }).from(assistants).where(and(eq(assistants.id, assistantId), isNull(assistants.deletedAt)));
  return row ? connectionOf(cfg, row.accountId, assistantId) : null;
}
