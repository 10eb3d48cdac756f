import { Cron } from 'croner';
import type { CronTrigger } from './contracts';
import type { z } from 'zod';

const DAY = { MO: 'MON', TU: 'TUE', WE: 'WED', TH: 'THU', FR: 'FRI', SA: 'SAT', SU: 'SUN' } as const;

/** The cron pattern of a schedule (minute hour day-of-month month day-of-week). */
export function cronPattern(t: z.infer<typeof CronTrigger>): string {
  const s = t.schedule;
  const m = s.minute ?? 0;
  const h = s.hour ?? 0;
  switch (s.frequency) {
    case 'minutely':
      return '* * * * *';
    case 'hourly':
      return `${m} * * * *`;
    case 'daily':
      return `${m} ${h} * * *`;
    case 'weekly':
      return `${m} ${h} * * ${(s.days ?? ['MO']).map((d) => DAY[d]).join(',')}`;
    case 'monthly':
      return `${m} ${h} ${s.dayOfMonth ?? 1} * *`;
  }
}

/** The next time the schedule fires after `after`, in its time zone (UTC when none). */
export function nextCronAt(t: z.infer<typeof CronTrigger>, after: Date): Date | null {
  return new Cron(cronPattern(t), { timezone: t.timezone ?? 'UTC' }).nextRun(after);
}
