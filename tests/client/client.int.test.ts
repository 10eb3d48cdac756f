import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStewardClient, StewardError } from '@/client/index';
import { registerCertificate } from '@/server/accounts/service';
import { newAccount, uniqueEmail } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

/** An account-wide client, as an application's backend holds one. */
async function accountClient() {
  const acct = await newAccount(app());
  return { acct, steward: createStewardClient({ baseUrl: app().baseUrl, apiKey: acct.key }) };
}

/** Provisions a user through the client and finishes their onboarding, as a backend would. */
async function provisioned(steward: ReturnType<typeof createStewardClient>) {
  const email = uniqueEmail('client');
  const { user } = await steward.POST('/users/provision', { body: { email } });
  const ada = steward.as(email);
  await ada.PATCH('/profile', { body: { timezone: 'Europe/Paris' } });
  await ada.PUT('/users/{userId}/preferences/scheduling', {
    params: { path: { userId: user.id } },
    body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
  });
  await ada.POST('/onboarding/mark-onboarded', { body: {} });
  return { user, ada, email };
}

describe('the typed client against a started server', () => {
  it('provisions a user, creates a task as them, and lists it', async () => {
    const { steward } = await accountClient();
    const { user, ada } = await provisioned(steward);
    const { assistant } = await ada.POST('/users/{userId}/assistants', { params: { path: { userId: user.id } }, body: { name: 'Ada' } });
    const { task } = await ada.POST('/tasks', { body: { title: 'Book a table', assistant: assistant.id } });
    expect(task).toMatchObject({ title: 'Book a table', status: 'pending', ownerId: user.id });
    const listed = await ada.GET('/tasks');
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    const one = await steward.GET('/tasks/{taskId}', { params: { path: { taskId: task.id } } });
    expect(one.task.id).toBe(task.id);
  });

  it('answers errors as StewardError with status, code, message and request id', async () => {
    const { steward } = await accountClient();
    const { ada } = await provisioned(steward);
    const missing = await ada.GET('/tasks/{taskId}', { params: { path: { taskId: 'tsk_nothing_here' } } }).catch((e) => e);
    expect(missing).toBeInstanceOf(StewardError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect(missing.requestId).toMatch(/.+/);
    const invalid = await ada.POST('/tasks', { body: { title: '', assistant: '' } }).catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'bad_request' });
    expect(invalid.message).toContain('title');
    // An unknown key is refused with the bare {ok:false}: still a typed error.
    const stranger = createStewardClient({ baseUrl: app().baseUrl, apiKey: `ak_live_${'0'.repeat(64)}` });
    await expect(stranger.GET('/me')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('acts as nobody else: another account cannot see the task (404)', async () => {
    const { steward } = await accountClient();
    const { user, ada } = await provisioned(steward);
    const { assistant } = await ada.POST('/users/{userId}/assistants', { params: { path: { userId: user.id } }, body: { name: 'Ada' } });
    const { task } = await ada.POST('/tasks', { body: { title: 'Private', assistant: assistant.id } });
    const other = (await accountClient()).steward;
    await expect(other.GET('/tasks/{taskId}', { params: { path: { taskId: task.id } } })).rejects.toMatchObject({ status: 404 });
  });
});

describe('certificate tokens', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('signs RS256 tokens with the kid, acts as a user with X-User-Email, and signs a new token when under five minutes remain', async () => {
    const acct = await newAccount(app());
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kid } = await registerCertificate(app().database.db, acct.accountId, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const sent: string[] = [];
    let clock = Date.now();
    const steward = createStewardClient({
      baseUrl: app().baseUrl,
      certificate: { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), kid },
      now: () => clock,
      fetch: (r) => {
        sent.push(r.headers.get('authorization')!.slice('Bearer '.length));
        return fetch(r);
      },
    });

    // The server's clock moves with the client's: only Date is faked, timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(clock);
    expect(await steward.GET('/me')).toMatchObject({ accountId: acct.accountId, userId: null });
    const first = decodeJwt(sent[0]);
    expect(first.exp! - first.iat!).toBe(3600);

    clock += 50 * 60_000;
    vi.setSystemTime(clock);
    await steward.GET('/me');
    expect(sent[1]).toBe(sent[0]); // ten minutes left: the cached token

    // 61 minutes on, the first token has expired at the server: only a fresh one gets through.
    clock += 11 * 60_000;
    vi.setSystemTime(clock);
    expect(await steward.GET('/me')).toMatchObject({ accountId: acct.accountId });
    expect(sent[2]).not.toBe(sent[0]);
    expect(decodeJwt(sent[2]).iat).toBe(Math.floor(clock / 1000));

    const { user, email } = await provisioned(steward);
    const me = await steward.as(email).GET('/me');
    expect(me).toMatchObject({ userId: user.id });
    expect(decodeJwt(sent.at(-1)!)).toMatchObject({ email });
  });
});
