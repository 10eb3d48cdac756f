import { expect } from 'vitest';
import { eq } from 'drizzle-orm';
import { mailboxes } from '@/db/schema';
import type { TestServer } from '../../helpers/server';

/*
 * The connection flow as a browser goes through it: the start (the user's key) redirects to
 * /api/oauth/begin, which sets the binding cookie and redirects to the provider's consent page
 * (the stand-in consents at once), which redirects back to the callback with the code.
 */

export type Flow = { authorizeUrl: URL; callback: URL; cookie: string; finish: () => Promise<Response> };

export async function beginConnect(app: TestServer, key: string, provider: 'gmail' | 'outlook'): Promise<Flow> {
  const started = await fetch(`${app.baseUrl}/oauth/mailbox/authorize?provider=${provider}`, { headers: { Authorization: `Bearer ${key}` }, redirect: 'manual' });
  expect(started.status, await started.clone().text()).toBe(302);
  const begun = await fetch(started.headers.get('location')!, { redirect: 'manual' });
  expect(begun.status, await begun.clone().text()).toBe(302);
  const cookie = begun.headers.get('set-cookie')!.split(';')[0];
  const authorizeUrl = new URL(begun.headers.get('location')!);
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(consent.status, await consent.clone().text()).toBe(302);
  const callback = new URL(consent.headers.get('location')!);
  return { authorizeUrl, callback, cookie, finish: () => fetch(callback, { headers: { cookie }, redirect: 'manual' }) };
}

/** Connects and answers the callback's JSON (the mailbox). */
export async function connect(app: TestServer, key: string, provider: 'gmail' | 'outlook') {
  const flow = await beginConnect(app, key, provider);
  const done = await flow.finish();
  const body = await done.json();
  expect(done.status, JSON.stringify(body)).toBe(200);
  return { flow, mailbox: body.mailbox as { id: string; address: string; provider: string; status: string; notifications: boolean | null } };
}

/** The poll is due again (as a minute later). */
export async function pollDue(app: TestServer, mailboxId: string) {
  await app.database.db.update(mailboxes).set({ lastSyncedAt: new Date(Date.now() - 120_000) }).where(eq(mailboxes.id, mailboxId));
}

/** Every row of every table as text: what a database dump holds. */
export async function dumpDatabase(app: TestServer): Promise<string> {
  const pool = app.database.pool;
  const tables = await pool.query<{ table_schema: string; table_name: string }>(
    `SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const out: string[] = [];
  for (const t of tables.rows) {
    const rows = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${t.table_schema}"."${t.table_name}" t`);
    out.push(...rows.rows.map((r) => r.row));
  }
  return out.join('\n');
}
