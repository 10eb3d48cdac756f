import { describe, expect, it } from 'vitest';
import { AppError } from '@/server/http/errors';
import { call } from '../helpers/client';
import { useCartWorld } from './cart-world';

/*
 * Fields that become mail headers (subject, to/cc/bcc, a calendar event's title) are one line: a
 * CR or LF is refused where the dispatch is staged (the staging service, as the agent's tools call
 * it) and where the person edits it (PATCH .../edit and PATCH .../dispatches/{index}), naming the
 * field, instead of being left to the mailer to fold.
 */

const { app, setup, runningTask, stage, emailAsUser, pendingCart, read, edit, update } = useCartWorld();

/** The refusal a staging call ends with: status, code and message. */
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return { status: e.status, code: e.code, message: e.message };
    throw e;
  }
  return null;
}

const calendar = (title: string) => ({
  type: 'calendar_event' as const,
  platform: 'calendar',
  actionType: 'calendar' as const,
  to: ['bob@example.org'],
  payload: { title, start: '2030-01-01T10:00:00Z', end: '2030-01-01T11:00:00Z', attendees: ['bob@example.org'], location: null },
});

describe('staging refuses a line break in a header field', () => {
  it('subject, each recipient field and the calendar title are refused with a 400 naming the field; nothing is staged', async () => {
    const { a } = await setup();
    const { taskId, runId } = await runningTask(a);
    const cases: Array<[string, Parameters<typeof stage>[2]]> = [
      ['subject', emailAsUser({ subject: 'Dinner\r\nBcc: eve@evil.test' })],
      ['subject', emailAsUser({ subject: 'Dinner\n' })],
      ['to', emailAsUser({ to: ['bob@example.org\nBcc: eve@evil.test'] })],
      ['cc', emailAsUser({ cc: ['carol@example.org\r'] })],
      ['bcc', emailAsUser({ bcc: ['dan@example.org\r\nX-Evil: 1'] })],
      ['payload.title', calendar('Lunch\r\nBcc: eve@evil.test')],
    ];
    for (const [field, input] of cases) {
      const refused = await refusal(stage(taskId, runId, input));
      expect(refused, field).toMatchObject({ status: 400 });
      expect(refused!.message, field).toContain(field);
      expect(refused!.message, field).toContain('one line');
    }
    // Nothing of the refused calls was staged; a clean one still is, with index 0.
    expect(await stage(taskId, runId, emailAsUser())).toMatchObject({ index: 0 });
    // Line breaks in the body are content, not headers.
    expect(await stage(taskId, runId, emailAsUser({ body: 'Hi Bob,\r\n\r\nsee you.\n' }))).toMatchObject({ index: 1 });
    expect(await stage(taskId, runId, calendar('Lunch with Bob'))).toMatchObject({ index: 2 });
  });
});

describe('editing refuses a line break in a header field', () => {
  it('PATCH .../edit and PATCH .../dispatches/{index} answer 400 naming the field and change nothing', async () => {
    const { a } = await setup();
    const { cartId } = await pendingCart(a);
    const before = await read(a, cartId);

    const edited = await edit(a, cartId, 0, { subject: 'Dinner\r\nBcc: eve@evil.test' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(400);
    expect(JSON.stringify(edited.body)).toContain('subject');

    for (const [field, body] of [
      ['subject', { subject: 'Dinner\nX-Evil: 1' }],
      ['to', { to: ['bob@example.org\r\nBcc: eve@evil.test'] }],
      ['cc', { cc: ['carol@example.org\n'] }],
      ['bcc', { bcc: ['x@example.org\rX: y'] }],
    ] as const) {
      const res = await update(a, cartId, 0, body);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(JSON.stringify(res.body), field).toContain(field);
    }
    expect((await read(a, cartId)).contentHash).toBe(before.contentHash);

    // One-line values still go through.
    const ok = await edit(a, cartId, 0, { subject: 'Dinner on Friday' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.cart.dispatches[0].subject).toBe('Dinner on Friday');
  });

  it('a calendar event’s title cannot get a line break through PATCH .../dispatches/{index}', async () => {
    const { a } = await setup();
    const manual = await call(app(), `/users/${a.id}/preferences/supervision/matrix`, { key: a.key, method: 'PATCH', body: { matrix: { calendar: { mode: 'manual' } } } });
    expect(manual.status, JSON.stringify(manual.body)).toBe(200);
    const { cartId } = await pendingCart(a, [calendar('Lunch with Bob')]);
    const res = await update(a, cartId, 0, { payload: { ...calendar('x').payload, title: 'Lunch\nBcc: eve@evil.test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body)).toContain('payload.title');
  });
});
