import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { carts, notices, taskActivities, tasks, users } from '@/db/schema';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';
import { useEmailHarness } from './email-harness';
import { emailCall } from '../approvals/execution-harness';

/*
 * Notices that find the user (issue: the channel layer): a question from ask_user reaches them by
 * email, threaded, with a one-time link; their answer to it resumes the task; an approval email
 * answered is a message to the task, never an approval; quiet hours hold what is not urgent; the
 * link opens a page that spends nothing until its button is pressed, and works once.
 */

const h = useEmailHarness();

/** A person whose notices go out at any hour (the harness's working hours are Monday 9 to 5), unless the test asks for quiet hours. */
async function person(quietHours = false) {
  const p = await h.person(await newAccount(h.app()));
  const set = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { quietHours } } } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  return p;
}
const noticesOf = (userId: string) => h.db().select().from(notices).where(eq(notices.userId, userId)).orderBy(notices.createdAt);
const linkIn = (text: string) => /https?:\/\/\S+\/api\/notices\/open\?token=([A-Za-z0-9_-]+)/.exec(text);

describe('a question finds the user and their answer resumes the task', () => {
  it('ask_user → a threaded email with Reply-To the assistant; the owner’s reply is the task’s next message; the task completes', async () => {
    const p = await person();
    const title = `Plan the offsite ${Date.now()}`;
    h.state.llm.setFallback((r: ModelRequest) => {
      const text = JSON.stringify(r.messages);
      if (!text.includes(title)) return { text: 'Noted.' };
      if (text.includes('Lisbon, in May')) return { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Offsite: Lisbon in May.' } }] };
      return { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which city and month do you prefer?' } }] };
    });
    const { taskId, runId } = await h.startTask(p, { title });
    await h.ended(runId);
    const notice = await h.until(async () => h.mailTo(p.email).find((m) => (m.parsed.subject ?? '').startsWith('Question about')) ?? null, 20_000);
    expect(notice.parsed.text).toContain('Which city and month do you prefer?');
    expect(notice.parsed.replyTo?.value[0]?.address).toBe(p.assistantEmail);
    expect(notice.parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(linkIn(notice.parsed.text ?? '')).not.toBeNull();
    // The row is marked sent once the SMTP server has answered, just after the mail arrives.
    const row = await h.until(async () => (await noticesOf(p.id)).find((n) => n.status !== 'pending') ?? null, 10_000);
    expect(row).toMatchObject({ kind: 'question', status: 'sent', taskId, channel: 'email', providerMessageId: notice.parsed.messageId });

    await h.mail({ from: p.email, to: p.assistantEmail, subject: `Re: ${notice.parsed.subject}`, text: 'Lisbon, in May.', inReplyTo: notice.parsed.messageId!, references: [notice.parsed.messageId!] });
    const done = await h.until(async () => {
      const [t] = await h.db().select().from(tasks).where(eq(tasks.id, taskId));
      return t?.status === 'completed' ? t : null;
    }, 20_000);
    expect(done.summary).toBe('Offsite: Lisbon in May.');
    const answers = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'user')));
    expect(answers.map((a) => [a.content.trim(), a.platform])).toContainEqual(['Lisbon, in May.', 'email']);
  });

  it('an answer to the approval email goes to the task as a message and approves nothing', async () => {
    const p = await person();
    await h.cells(p, { email_as_assistant: { mode: 'manual' } });
    const { runId, taskId } = await h.stagingRun(p, [emailCall()]);
    const cart = await h.cartReaches((await h.cartOfRun(runId)).id, ['pending_approval']);
    const approval = await h.until(async () => h.approvalEmails().find((m) => m.envelopeTo.includes(p.email)) ?? null, 20_000);
    expect(approval.parsed.replyTo?.value[0]?.address).toBe(p.assistantEmail);
    await h.mail({ from: p.email, to: p.assistantEmail, subject: `Re: ${approval.parsed.subject}`, text: 'Yes, approve it.', inReplyTo: approval.parsed.messageId!, references: [approval.parsed.messageId!] });
    await h.until(async () => {
      const rows = await h.db().select().from(taskActivities).where(and(eq(taskActivities.taskId, taskId), eq(taskActivities.kind, 'user')));
      return rows.some((r) => r.content.includes('Yes, approve it.')) ? true : null;
    }, 20_000);
    await h.settle(1_000);
    const [still] = await h.db().select().from(carts).where(eq(carts.id, cart.id));
    expect(still!.status).toBe('pending_approval');
    expect(h.mails().filter((m) => m.envelopeTo.includes('bob@partner.example'))).toEqual([]);
  });
});

describe('a channel that cannot reach the user', () => {
  it('a user who chose Slack but linked no Slack identity gets the question by email, and the notice says why', async () => {
    const p = await person();
    const set = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'slack' } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const title = `Book the venue ${Date.now()}`;
    h.state.llm.setFallback((r: ModelRequest) =>
      JSON.stringify(r.messages).includes(title) ? { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which date suits you?' } }] } : { text: 'Noted.' },
    );
    const { runId } = await h.startTask(p, { title });
    await h.ended(runId);
    const mail = await h.until(async () => h.mailTo(p.email).find((m) => (m.parsed.text ?? '').includes('Which date suits you?')) ?? null, 20_000);
    expect(mail.parsed.replyTo?.value[0]?.address).toBe(p.assistantEmail);
    const row = await h.until(async () => (await noticesOf(p.id)).find((n) => n.kind === 'question' && n.status !== 'pending') ?? null, 10_000);
    expect(row).toMatchObject({ status: 'sent', channel: 'email', error: expect.stringMatching(/^slack could not reach the user \(.+\): sent by email instead$/) });
  });
});

describe('preferredContactChannel', () => {
  it('names the notice channel when the notification preference names none; a stated notification channel wins; an unknown channel is 400 naming the field', async () => {
    const p = await person();
    const bad = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferredContactChannel: { channel: 'pigeon' } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('preferredContactChannel.channel');
    const set = await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferredContactChannel: { channel: 'slack', note: 'kept as given' } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.user.preferredContactChannel).toEqual({ channel: 'slack', note: 'kept as given' });
    const ask = async (title: string) => {
      h.state.llm.setFallback((r: ModelRequest) => (JSON.stringify(r.messages).includes(title) ? { toolCalls: [{ name: 'ask_user', arguments: { question: `About ${title}?` } }] } : { text: 'Noted.' }));
      const { runId, taskId } = await h.startTask(p, { title });
      await h.ended(runId);
      return h.until(async () => (await noticesOf(p.id)).find((n) => n.kind === 'question' && n.taskId === taskId && n.status !== 'pending') ?? null, 20_000);
    };
    // Slack was tried first (no Slack identity is linked, so the notice fell back to email and says so).
    expect(await ask(`Contact pref ${Date.now()}`)).toMatchObject({ channel: 'email', error: expect.stringMatching(/^slack could not reach the user/) });
    await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'email' } } } });
    expect(await ask(`Stated pref ${Date.now()}`)).toMatchObject({ channel: 'email', error: null });
  });
});

describe('preferences.<channel>.enabled', () => {
  it('a channel turned off gets no notice: Slack off falls back to email without trying Slack; with email off too the notice stays in the app', async () => {
    const p = await person();
    const shown = await call(h.app(), '/profile', { key: p.key });
    expect(shown.body.user.preferences).toMatchObject({ email: { enabled: true }, slack: { enabled: true }, teams: { enabled: true }, desktop: { enabled: false } });
    const ask = async (title: string) => {
      h.state.llm.setFallback((r: ModelRequest) => (JSON.stringify(r.messages).includes(title) ? { toolCalls: [{ name: 'ask_user', arguments: { question: `About ${title}?` } }] } : { text: 'Noted.' }));
      const { runId, taskId } = await h.startTask(p, { title });
      await h.ended(runId);
      return h.until(async () => (await noticesOf(p.id)).find((n) => n.kind === 'question' && n.taskId === taskId && n.status !== 'pending') ?? null, 20_000);
    };
    await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { notifications: { channel: 'slack' }, slack: { enabled: false } } } });
    const first = `Slack off ${Date.now()}`;
    expect(await ask(first)).toMatchObject({ status: 'sent', channel: 'email', error: null });
    await h.until(async () => h.mailTo(p.email).find((m) => (m.parsed.text ?? '').includes(`About ${first}?`)) ?? null, 20_000);

    await call(h.app(), '/profile', { method: 'PATCH', key: p.key, body: { preferences: { email: { enabled: false } } } });
    const second = `All off ${Date.now()}`;
    const kept = await ask(second);
    expect(kept).toMatchObject({ status: 'skipped', channel: 'email', error: expect.stringContaining('shown in the app only') });
    await h.settle(1_000);
    expect(h.mailTo(p.email).filter((m) => (m.parsed.text ?? '').includes(`About ${second}?`))).toEqual([]);
  });
});

describe('the one-time link', () => {
  it('opening it shows a page and spends nothing; pressing continue signs the user in and goes to the task; a second press is refused', async () => {
    const p = await person();
    h.state.llm.setFallback((r: ModelRequest) =>
      JSON.stringify(r.messages).includes('Link test') ? { toolCalls: [{ name: 'ask_user', arguments: { question: 'Ready?' } }] } : { text: 'Noted.' },
    );
    const { runId, taskId } = await h.startTask(p, { title: 'Link test' });
    await h.ended(runId);
    const notice = await h.until(async () => h.mailTo(p.email).find((m) => (m.parsed.subject ?? '').startsWith('Question about')) ?? null, 20_000);
    const token = linkIn(notice.parsed.text ?? '')![1]!;
    const page = await fetch(`${h.app().baseUrl}/notices/open?token=${token}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post" action="/api/notices/open">');
    const opened = await fetch(`${h.app().baseUrl}/notices/open`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}` });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toMatch(new RegExp(`/tasks/${taskId}$`));
    expect(opened.headers.get('set-cookie')).toMatch(/next-auth\.session-token=/);
    const again = await fetch(`${h.app().baseUrl}/notices/open`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}` });
    expect(again.status).toBe(410);
    // Only the hash is kept.
    const [row] = await noticesOf(p.id);
    expect(JSON.stringify(row)).not.toContain(token);
  });
});

describe('quiet hours', () => {
  it('a non-urgent notice outside working hours waits for them; a time-boxed action is noticed at once', async () => {
    const p = await person(true);
    // Working hours that never include now: a five-minute slot twelve hours away.
    const later = new Date(Date.now() + 12 * 3_600_000);
    const hh = String(later.getUTCHours()).padStart(2, '0');
    const day = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'][later.getUTCDay()]!;
    await h.db().update(users).set({ timezone: 'UTC', schedulingPreferences: { availability: { workingHours: { [day]: [{ start: `${hh}:00`, end: `${hh}:05` }] } } } }).where(eq(users.id, p.id));
    await h.stagingRun(p, [{ name: 'ask_user', arguments: { question: 'Now?' } }], { title: 'Quiet question' });
    await h.settle(1_500);
    const [question] = await noticesOf(p.id);
    expect(question).toMatchObject({ kind: 'question', status: 'pending', urgent: false });
    expect(question!.dueAt.getTime()).toBeGreaterThan(Date.now() + 11 * 3_600_000);
    expect(h.mailTo(p.email).filter((m) => (m.parsed.subject ?? '').startsWith('Question about'))).toEqual([]);

    await h.cells(p, { email_as_assistant: { mode: 'time-boxed', timeBoxedWindowMin: 30 } });
    await h.stagingRun(p, [emailCall()]);
    const boxed = await h.until(async () => h.mailTo(p.email).find((m) => (m.parsed.subject ?? '').startsWith('Goes out at')) ?? null, 20_000);
    expect(boxed.parsed.text).toContain('unless you edit or cancel them');
    // The row is marked sent once the SMTP server has answered, just after the mail arrives.
    const timeBox = await h.until(async () => (await noticesOf(p.id)).find((n) => n.kind === 'time_box' && n.status !== 'pending') ?? null, 10_000);
    expect(timeBox).toMatchObject({ urgent: true, status: 'sent' });
  });

  it('a task that fails is noticed', async () => {
    const p = await person();
    h.withoutModel();
    const { runId, taskId } = await h.startTask(p, { title: 'Will fail' });
    await h.ended(runId);
    const failed = await h.until(async () => h.mailTo(p.email).find((m) => m.parsed.subject === 'Task failed: Will fail') ?? null, 20_000);
    expect(failed.parsed.text).toContain('stopped with an error');
    expect((await call(h.app(), `/tasks/${taskId}`, { key: p.key })).body.task.status).toBe('error');
  });
});
