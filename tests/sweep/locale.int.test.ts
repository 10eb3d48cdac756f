import { expect, it } from 'vitest';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from '../agent/run-harness';

/**
 * Issue 46: a user's `locale` (spec 1) decides how the assistant writes dates, times and numbers,
 * and the language it falls back to: the run is told the locale, and the current time it reads is
 * written the locale's way.
 */
const h = useRunHarness();

it('a run for a user whose locale is de-DE is told so, and reads the time written the German way', async () => {
  const a = await h.person(await newAccount(h.app()));
  const changed = await call(h.app(), '/profile', { method: 'PATCH', key: a.key, body: { locale: 'de-DE', timezone: 'Europe/Berlin' } });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  h.state.llm.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done' } }] });
  const { runId } = await h.startTask(a, { title: 'Plan the week' });
  expect(await h.ended(runId)).toMatchObject({ status: 'finished' });
  const request = h.state.llm.requests.find((r) => JSON.stringify(r.messages).includes('Task: Plan the week'))!;
  const system = String(request.messages[0].content);
  expect(system).toContain("The user's locale: de-DE.");
  const now = system.split('\n').find((l) => l.startsWith('Current time:'))!;
  const weekday = new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin', weekday: 'long' }).format(new Date());
  expect(now).toContain(weekday);
  expect(now).toMatch(/ um \d{1,2}:\d{2} for the user/);
});
