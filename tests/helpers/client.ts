import type { TestServer } from './server';
import { createAccount } from '@/server/accounts/service';

export type Call = {
  method?: string;
  key?: string | null;
  as?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

export type ApiResult<T = any> = { status: number; body: T; headers: Headers };

/** Sends a real HTTP request to the test server. */
export async function call<T = any>(server: TestServer, path: string, opts: Call = {}): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.as) headers['X-User-Email'] = opts.as;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(server.baseUrl + path, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON body stays text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export type AccountFixture = { accountId: string; key: string };

/** An account and its account-wide key, made through the console service (the admin CLI's job). */
export async function newAccount(server: TestServer, name = 'Acme'): Promise<AccountFixture> {
  const a = await createAccount(server.database.db, name);
  return { accountId: a.accountId, key: a.apiKey };
}

let counter = 0;
export const uniqueEmail = (prefix = 'user') => `${prefix}${Date.now().toString(36)}${counter++}@example.com`;

/** Provisions a user and finishes onboarding, so keys can act as them. */
export async function newUser(server: TestServer, account: AccountFixture, opts: { email?: string; onboard?: boolean; teamId?: string } = {}) {
  const email = opts.email ?? uniqueEmail();
  const res = await call(server, '/users/provision', { key: account.key, body: { email, teamId: opts.teamId } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`provision failed: ${res.status} ${JSON.stringify(res.body)}`);
  const user = res.body.user;
  if (opts.onboard !== false) await onboard(server, account.key, email, user.id);
  return { id: user.id as string, email, teamId: res.body.teamId as string };
}

export async function onboard(server: TestServer, key: string, email: string, userId: string) {
  const steps = [
    await call(server, '/profile', { method: 'PATCH', key, as: email, body: { timezone: 'Europe/Paris' } }),
    await call(server, `/users/${userId}/preferences/scheduling`, {
      method: 'PUT',
      key,
      as: email,
      body: { schedulingPreferences: { availability: { workingHours: { MO: [{ start: '09:00', end: '17:00' }] } } } },
    }),
    await call(server, '/onboarding/mark-onboarded', { key, as: email, body: {} }),
  ];
  for (const s of steps) if (s.status !== 200) throw new Error(`onboarding failed: ${s.status} ${JSON.stringify(s.body)}`);
}

/** A user-level key for the user. */
export async function userKey(server: TestServer, account: AccountFixture, userId: string): Promise<string> {
  const res = await call(server, '/api-keys', { key: account.key, body: { label: 'user key', userId } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.apiKey.key;
}
