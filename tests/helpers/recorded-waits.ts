/**
 * How a stand-in lets a test wait for what it records: `until(check)` checks again whenever the
 * stand-in calls `notify()` (something happened) and at least every 50 ms, and throws after `ms`.
 */
export function recordedWaits(name: string) {
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  async function until<T>(check: () => T | null | undefined | false, ms = 10_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = check();
      if (v) return v;
      if (Date.now() > end) throw new Error(`${name}: timed out waiting`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }
  return { notify, until };
}
