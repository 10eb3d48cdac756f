import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';

/*
 * What keeps the hosted app's lists live (issue 45): for each person with a page open, this
 * process reads one compact fingerprint of their lists every LIVE_TICK_MS (one statement, shared
 * by all their tabs) and tells their pages which lists moved. Pages then read again through
 * their own procedures, so what they show passes the same services and rights as any read.
 *
 * A fingerprint rather than NOTIFY triggers: carts, tasks, chats and handoffs are written by many
 * paths in every area, and a trigger on each would add a commit-time notification to the engine's
 * hot writes (bench/tasks.ts); a read of four indexed aggregates per open person is cheaper
 * (docs/decisions.md, issue 45).
 */

export const LIVE_TICK_MS = 400;

export type LiveTopic = 'needs' | 'tasks' | 'chats' | 'sent';
type Print = Record<LiveTopic, string>;
type Listener = (moved: LiveTopic[]) => void;

/** One statement: counts and last changes of the person's tasks, carts, open handoffs and chats. */
export async function fingerprint(db: Db, userId: string): Promise<Print> {
  const { rows } = await db.execute<{ t: string | null; c: string | null; h: string | null; ch: string | null }>(sql`
    select
      (select count(*) || '/' || coalesce(max(updated_at)::text, '') from tasks where user_id = ${userId}) as t,
      (select count(*) || '/' || coalesce(max(updated_at)::text, '') from carts where user_id = ${userId}) as c,
      (select count(*) || '/' || coalesce(max(updated_at)::text, '') from handoffs where user_id = ${userId} and closed_at is null) as h,
      (select coalesce(max(activity_at)::text, '') from chats where user_id = ${userId}) as ch`);
  const r = rows[0] ?? { t: '', c: '', h: '', ch: '' };
  return { needs: `${r.t}|${r.c}|${r.h}`, tasks: r.t ?? '', chats: r.ch ?? '', sent: r.c ?? '' };
}

type Watch = { listeners: Set<Listener>; last: Print | null; timer: ReturnType<typeof setTimeout> | null; busy: boolean };

/** The people this process watches: one poll loop each, started by their first page, stopped with their last. */
class LiveHub {
  private watches = new Map<string, Watch>();
  constructor(private readonly db: () => Db) {}

  subscribe(userId: string, listener: Listener): () => void {
    let w = this.watches.get(userId);
    if (!w) {
      w = { listeners: new Set(), last: null, timer: null, busy: false };
      this.watches.set(userId, w);
      this.schedule(userId, w, 0);
    }
    w.listeners.add(listener);
    return () => {
      w.listeners.delete(listener);
      if (w.listeners.size === 0) {
        if (w.timer) clearTimeout(w.timer);
        this.watches.delete(userId);
      }
    };
  }

  private schedule(userId: string, w: Watch, ms: number) {
    w.timer = setTimeout(() => void this.tick(userId, w), ms);
    w.timer.unref?.();
  }

  private async tick(userId: string, w: Watch) {
    if (this.watches.get(userId) !== w) return;
    try {
      const now = await fingerprint(this.db(), userId);
      const before = w.last;
      w.last = now;
      if (before) {
        const moved = (Object.keys(now) as LiveTopic[]).filter((k) => now[k] !== before[k]);
        if (moved.length) for (const l of w.listeners) l(moved);
      }
    } catch {
      // A failed read (database restarting) is tried again at the next tick; pages keep what they show.
    }
    if (this.watches.get(userId) === w) this.schedule(userId, w, LIVE_TICK_MS);
  }
}

let hub: LiveHub | null = null;
/** The process's hub over the given database (the first caller's; every caller passes the shared one). */
export function liveHub(db: () => Db): LiveHub {
  hub ??= new LiveHub(db);
  return hub;
}
