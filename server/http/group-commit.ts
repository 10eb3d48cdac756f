/**
 * Statements many requests make at once, made together: the first request's item goes at once,
 * and items that arrive while a statement is in flight wait for it and go as the next one. Under
 * load a batch holds every request that came meanwhile; alone, a request waits for nothing.
 * (The executor's run writer does the same for checkpoints: one statement for many rows.)
 */
export class GroupCommit<T, R> {
  private pending: Array<{ item: T; done: (r: R) => void; fail: (e: unknown) => void }> = [];
  private running = false;

  constructor(
    /** Runs one batch; answers one result per item, in order. */
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((done, fail) => {
      this.pending.push({ item, done, fail });
      if (!this.running) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.running = true;
    try {
      while (this.pending.length) {
        const batch = this.pending.splice(0, this.maxBatch);
        try {
          const out = await this.run(batch.map((b) => b.item));
          batch.forEach((b, i) => b.done(out[i]!));
        } catch (e) {
          batch.forEach((b) => b.fail(e));
        }
      }
    } finally {
      this.running = false;
    }
  }
}
