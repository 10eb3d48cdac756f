import type { Db } from '@/db/client';
import type { UserActor } from '@/server/access/actor';
import { listMemories } from '@/server/memories/service';

/** Roughly 4 characters a token: enough to keep the memories within their share of the context. */
export const MEMORY_BUDGET_CHARS = 4_000 * 4;
const CANDIDATES = 100;

/**
 * The memories a run sees: what the owner sees through the memories service (their own and
 * their active teams'), active now, newest first, until the budget is spent. Nothing of another
 * user can appear: the service scopes the query to the owner.
 */
export async function memoriesForRun(db: Db, actor: UserActor, budgetChars = MEMORY_BUDGET_CHARS): Promise<string[]> {
  const { memories } = await listMemories(db, actor, { page: 1, perPage: CANDIDATES });
  const lines: string[] = [];
  let used = 0;
  for (const m of memories) {
    if (!m.isActive) continue;
    if (!m.content) continue;
    const line = `- ${m.content.replace(/\s+/g, ' ').trim()}${m.tags.length ? ` [${m.tags.join(', ')}]` : ''}`;
    if (used + line.length > budgetChars) break;
    lines.push(line);
    used += line.length;
  }
  return lines;
}
