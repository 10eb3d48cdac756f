import { describe, expect, it } from 'vitest';
import { auditWorld } from '../audit/world';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';

/*
 * Cross-account reads of audit events and idempotency records (issue 40, "not yet tried"): another
 * account's key, naming this account's actors, targets, organization or Idempotency-Key, reads
 * nothing of it. (One account's own readers: tests/audit/audit.int.test.ts, "who may read"; another
 * user's key under the same Idempotency-Key: tests/idempotency/idempotency.int.test.ts.)
 */

const app = useTestServer();

describe('audit events', () => {
  it('another account’s key filtering by this account’s actor, target or time sees none of them, and its organization’s log is 404', async () => {
    const w = await auditWorld(app());
    const made = await call(app(), '/api-keys', { key: w.acct.key, body: { label: 'theirs' } });
    expect(made.status).toBe(201);
    const mine = await call(app(), '/audit-events?action=api_key.created', { key: w.acct.key });
    const event = mine.body.events[0] as { id: string; actor: { id: string }; target: { id: string } };
    expect(event).toBeTruthy();

    const other = await newAccount(app());
    for (const q of [`?actorId=${event.actor.id}`, `?targetId=${event.target.id}`, '?action=api_key.created', `?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`]) {
      const res = await call(app(), `/audit-events${q}`, { key: other.key });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.events)).not.toContain(event.id);
      expect(res.body.events.every((e: { accountId: string }) => e.accountId === other.accountId)).toBe(true);
    }
    expect((await call(app(), `/organizations/${w.org.id}/audit`, { key: other.key })).status).toBe(404);
    // A cursor minted in this account pages nothing of it for the other one.
    const paged = await call(app(), '/audit-events?limit=1', { key: w.acct.key });
    expect(paged.body.cursor).toBeTruthy();
    const borrowed = await call(app(), `/audit-events?cursor=${encodeURIComponent(paged.body.cursor)}`, { key: other.key });
    expect(JSON.stringify(borrowed.body)).not.toContain(w.acct.accountId);
  });
});

describe('idempotency records', () => {
  it('another account’s key under the same Idempotency-Key and body runs on its own and never gets this account’s answer', async () => {
    const a = await newAccount(app());
    const b = await newAccount(app());
    const key = `cross-${Date.now()}`;
    const body = { label: 'same label' };
    const first = await call(app(), '/api-keys', { key: a.key, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const second = await call(app(), '/api-keys', { key: b.key, body, headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.apiKey.id).not.toBe(first.body.apiKey.id);
    expect(JSON.stringify(second.body)).not.toContain(first.body.apiKey.id);
    // A's retry still replays A's own answer.
    const retried = await call(app(), '/api-keys', { key: a.key, body, headers: { 'Idempotency-Key': key } });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.apiKey.id).toBe(first.body.apiKey.id);
  });
});
