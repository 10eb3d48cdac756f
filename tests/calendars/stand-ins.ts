import { afterAll, beforeAll } from 'vitest';
import { startGmailFake, type GmailFake } from '../helpers/gmail-fake';
import { startGoogleCalendarFake, type GoogleCalendarFake } from '../helpers/google-calendar-fake';
import { startRadicale, type Radicale } from '../helpers/radicale';

export type CalendarStandIns = { gmail: GmailFake; gcal: GoogleCalendarFake; radicale: Radicale };

/**
 * The calendar providers of a test file, started before its tests and stopped after, the
 * environment they set restored: Google's OAuth and Gmail API with the Calendar API v3 sharing
 * their grants, and with `radicale`, a real Radicale (CalDAV). Read the parts inside tests.
 */
export function useCalendarStandIns(o: { radicale?: boolean } = {}): CalendarStandIns {
  const parts = {} as CalendarStandIns;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    if (o.radicale) parts.radicale = await startRadicale();
    parts.gmail = await startGmailFake();
    parts.gcal = await startGoogleCalendarFake({ oauth: parts.gmail.oauth });
    const env = { ...(o.radicale ? parts.radicale.env : {}), ...parts.gmail.env, ...parts.gcal.env };
    for (const k of Object.keys(env)) saved[k] = process.env[k];
    Object.assign(process.env, env);
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await parts.gcal?.close();
    await parts.gmail?.close();
    await parts.radicale?.close();
  });
  return parts;
}

/** A real Radicale (CalDAV) for the test file alone, reachable by Steward while it runs; read it inside tests. */
export function useRadicale(): () => Radicale {
  let started: Radicale | undefined;
  let saved: string | undefined;
  beforeAll(async () => {
    started = await startRadicale();
    saved = process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
    Object.assign(process.env, started.env);
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.STEWARD_PROVIDER_ALLOWED_RANGES;
    else process.env.STEWARD_PROVIDER_ALLOWED_RANGES = saved;
    await started?.close();
  });
  return () => started!;
}
