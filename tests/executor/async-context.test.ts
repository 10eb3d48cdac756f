import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { releasedBetweenRuns, sdkStorageEnabled } from '@/inngest/async-context';

/**
 * The SDK's async context is turned off between calls of the serve endpoint, never during one:
 * a storage put where the SDK keeps its own (a global symbol), driven as the SDK drives it.
 */
const STORE = Symbol.for('inngest:als');
const g = globalThis as Record<symbol, { resolved?: AsyncLocalStorage<string> } | undefined>;
const als = (g[STORE] ??= { resolved: new AsyncLocalStorage<string>() }).resolved!;

/** A call that runs "a step" in its own context, and reports what the step saw after each wait. */
const served = releasedBetweenRuns(async (name: string, waits: number[]) =>
  als.run(name, async () => {
    const seen: (string | undefined)[] = [];
    for (const ms of waits) {
      await sleep(ms);
      seen.push(als.getStore());
    }
    return Response.json(seen);
  }),
);

describe('releasedBetweenRuns', () => {
  it('keeps a run’s context while another call ends beside it, and turns the storage off once none is in flight', async () => {
    const long = served('long', [5, 40, 5]);
    const short = served('short', [5]);
    expect(await (await short).json()).toEqual(['short']);
    // The short call ended while the long one waits: the storage stays on for it.
    expect(sdkStorageEnabled()).toBe(true);
    expect(await (await long).json()).toEqual(['long', 'long', 'long']);
    expect(sdkStorageEnabled()).toBe(false);
    expect(als.getStore()).toBeUndefined();
  });

  it('turns the storage back on for the next run, and off after a call that failed', async () => {
    expect(await (await served('again', [1])).json()).toEqual(['again']);
    expect(sdkStorageEnabled()).toBe(false);
    const failing = releasedBetweenRuns(async () => als.run('boom', async () => Promise.reject(new Error('step failed'))));
    await expect(failing()).rejects.toThrow('step failed');
    expect(sdkStorageEnabled()).toBe(false);
  });
});
