import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { cronSpread } from '@/inngest/cron-spread';
import { functions } from '@/inngest/functions';
import { cronOffsetMs, nextCronFire } from '@/server/executor/cron-schedule';

/** When the built-in executor fires a cron trigger (server/executor/cron-schedule.ts), and Steward's own spread (inngest/cron-spread.ts). */

// As the executor knows them: registered under the app's id (tests/executor/heartbeat.int.test.ts).
type Fn = { id: () => string; opts: { triggers?: Array<{ cron?: string }> } };
const cronFunctions = (functions as unknown as Fn[]).flatMap((f) => (f.opts.triggers ?? []).filter((t) => t.cron).map((t) => ({ id: `steward-${f.id()}`, cron: t.cron! })));
const at = (iso: string) => new Date(iso);

describe('cron fires', () => {
  it('without a spread, on the scheduled time, as the expression says', () => {
    const now = at('2026-12-06T10:00:30.000Z');
    expect(nextCronFire(undefined, 'steward-audit-sweep', '* * * * *', now)).toEqual(at('2026-12-06T10:01:00.000Z'));
    expect(nextCronFire(undefined, 'steward-heartbeat', '*/10 * * * *', now)).toEqual(at('2026-12-06T10:10:00.000Z'));
    expect(cronOffsetMs(undefined, 'steward-audit-sweep', '* * * * *')).toBe(0);
  });

  it('with a spread, each scheduled time once, a fixed offset after it, never passing the next', () => {
    for (const { id, cron } of cronFunctions) {
      const offset = cronOffsetMs(cronSpread, id, cron);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(cronSpread.windowMs);
      // Fire after fire, as the executor plans them (each planned from the moment it fired), over a day.
      const schedule = new Cron(cron, { timezone: 'UTC' });
      let now = at('2026-12-06T00:00:00.000Z');
      // The first scheduled time whose fire is still to come.
      let scheduled = schedule.nextRun(new Date(now.getTime() - offset))!;
      for (let i = 0; i < 30; i++) {
        const fire = nextCronFire(cronSpread, id, cron, now)!;
        expect(fire.getTime() - scheduled.getTime(), `${id} ${cron} fire ${i}`).toBe(offset);
        now = fire;
        scheduled = schedule.nextRun(scheduled)!;
      }
    }
  });

  it('the same on every process: the offset depends on the function and its cron alone', () => {
    expect(cronOffsetMs({ ...cronSpread }, 'steward-audit-sweep', '* * * * *')).toBe(cronOffsetMs(cronSpread, 'steward-audit-sweep', '* * * * *'));
    expect(nextCronFire(cronSpread, 'steward-audit-sweep', '* * * * *', at('2026-12-06T10:00:00.000Z'))).toEqual(nextCronFire(cronSpread, 'steward-audit-sweep', '* * * * *', at('2026-12-06T10:00:00.000Z')));
  });

  it("Steward's minutely sweeps are spread over the window; what people schedule fires on the minute", () => {
    // Every exact name is one of the cron functions (a typo would silently spread it).
    for (const name of cronSpread.exact) expect(cronFunctions.map((f) => f.id), name).toContain(`steward-${name}`);
    for (const f of cronFunctions.filter((f) => cronSpread.exact.includes(f.id.replace(/^steward-/, '')))) expect(cronOffsetMs(cronSpread, f.id, f.cron)).toBe(0);
    const sweeps = cronFunctions.filter((f) => f.cron === '* * * * *' && !cronSpread.exact.includes(f.id.replace(/^steward-/, '')));
    expect(sweeps.length).toBeGreaterThanOrEqual(10);
    const perSecond = new Map<number, number>();
    for (const f of sweeps) {
      const second = Math.floor(cronOffsetMs(cronSpread, f.id, f.cron) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    // Not all on one instant: a hash clumps a few at most (4 of 12 share a second today, where 15 fell on second 0).
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(4);
    expect(perSecond.size).toBeGreaterThanOrEqual(Math.ceil(sweeps.length / 2));
  });
});
