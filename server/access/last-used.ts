import type pg from 'pg';

/**
 * Keeps api_keys.last_used_at current without a write per request: uses are
 * remembered in memory and flushed in one statement every few seconds.
 */
export class LastUsedTracker {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly intervalMs = 5_000,
  ) {}

  touch(keyId: string, at = new Date()) {
    this.pending.set(keyId, at);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** The not-yet-written time for a key, so lists answer with the current value. */
  peek(keyId: string): Date | undefined {
    return this.pending.get(keyId);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.entries()];
    this.pending.clear();
    const ids = batch.map(([id]) => id);
    const times = batch.map(([, at]) => at.toISOString());
    try {
      await this.pool.query(
        `UPDATE api_keys AS k SET last_used_at = v.at
         FROM unnest($1::text[], $2::timestamptz[]) AS v(id, at)
         WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`,
        [ids, times],
      );
    } catch {
      // Best effort: a failed flush loses only a last-used time.
    }
  }
}
