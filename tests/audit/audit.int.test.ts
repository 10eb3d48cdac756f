import http from 'node:http';
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { auditEvents, carts, webhookDeliveries } from '@/db/schema';
import { setKillSwitch } from '@/server/accounts/service';
import { beginExecution } from '@/server/approvals/execution';
import { rejectByLink } from '@/server/approvals/reject-link';
import { recordAudit, registerAuditSink } from '@/server/audit/record';
import { dropExpired, emitPending } from '@/server/audit/sweep';
import { setApprovalLock } from '@/server/policy/approval-locks';
import { emitWebhookEvent } from '@/server/webhooks/emit';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { auditWorld, pendingCart, rejectLinkFor } from './world';

/**
 * The audit log (spec 5, issue 31) over real HTTP: security-relevant actions recorded with who,
 * what, where from and before/after (never a secret), read back through GET /api/audit-events by
 * the account or one organization's admin, filtered and paged newest first, and delivered as the
 * webhook event `audit.event`.
 */
const app = useTestServer();
const db = () => app().database.db;
const events = async (key: string, query = '') => call(app(), `/audit-events${query}`, { key });
const UA = 'audit-test/1.0';

describe('what is recorded', () => {
  it('API keys created, revoked and deleted: the key that acted, its address, user agent and request id, and the settings (never the key)', async () => {
    const acct = await newAccount(app());
    const created = await call(app(), '/api-keys', { key: acct.key, body: { label: 'ci', scopes: ['read'] }, headers: { 'User-Agent': UA, 'X-Request-Id': 'req-audit-0001' } });
    const keyId = created.body.apiKey.id as string;
    await call(app(), `/api-keys/${keyId}/revoke`, { key: acct.key, method: 'POST' });
    await call(app(), `/api-keys/${keyId}`, { key: acct.key, method: 'DELETE' });
    const res = await events(acct.key, `?targetId=${keyId}`);
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: { action: string }) => e.action)).toEqual(['api_key.deleted', 'api_key.revoked', 'api_key.created']);
    const made = res.body.events[2];
    expect(made).toMatchObject({ actor: { type: 'api_key' }, target: { type: 'api_key', id: keyId }, accountId: acct.accountId, ip: '127.0.0.1', userAgent: UA, requestId: 'req-audit-0001' });
    expect(made.changes.after).toMatchObject({ label: 'ci', scopes: ['read'], status: 'active' });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(created.body.apiKey.key);
    expect(text).not.toMatch(/keyHash|ak_live_/);
  });

  it('organization changes: SSO, the SCIM token (never the token), domains, roles, team policy, budgets, webhooks', async () => {
    const w = await auditWorld(app());
    const { org, acct, adminKey } = w;
    await call(app(), `/organizations/${org.id}/sso`, { key: adminKey, method: 'PUT', body: { enforced: false, saml: { issuer: 'https://idp.example/a' } } });
    const minted = await call(app(), `/organizations/${org.id}/scim/token`, { key: adminKey, method: 'POST' });
    const domain = await call(app(), `/organizations/${org.id}/domains`, { key: adminKey, body: { domain: `d${Date.now()}.example` } });
    await call(app(), `/organizations/${org.id}/domains/${domain.body.domain.id}`, { key: adminKey, method: 'PUT', body: { autoJoin: true } });
    await call(app(), `/users/${w.outsider.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'member' } });
    await call(app(), `/users/${w.outsider.id}`, { key: adminKey, method: 'PUT', body: { organizationRole: 'admin' } });
    await call(app(), `/teams/${w.admin.teamId}/settings/resource-permissions`, { key: adminKey, method: 'PATCH', body: { capabilities: { workspaceCli: 'off' } } });
    const budget = await call(app(), '/budgets', { key: adminKey, body: { scope: 'organization', scopeId: org.id, limitCredits: 10 } });
    await call(app(), `/budgets/${budget.body.budget.id}`, { key: adminKey, method: 'PATCH', body: { limitCredits: 20 } });
    const hook = await call(app(), '/webhooks', { key: acct.key, body: { url: 'https://93.184.215.14/hooks' } });

    const mine = (await events(adminKey, '?limit=100')).body.events as Array<{ action: string; organizationId?: string; changes?: { before: any; after: any } }>;
    const actions = mine.map((e) => e.action);
    for (const a of ['sso.updated', 'scim_token.created', 'domain.added', 'domain.updated', 'member.role_changed', 'budget.created', 'budget.changed']) expect(actions, a).toContain(a);
    // Only this organization's events reach its admin: the account's webhook is not among them.
    expect(mine.every((e) => e.organizationId === org.id)).toBe(true);
    expect(actions).not.toContain('webhook.created');
    const role = mine.find((e) => e.action === 'member.role_changed' && e.changes?.after.organizationRole === 'admin')!;
    expect(role.changes!.before.organizationRole).toBe('member');
    expect(mine.find((e) => e.action === 'budget.changed')!.changes).toMatchObject({ before: { limitCredits: 10 }, after: { limitCredits: 20 } });
    expect(JSON.stringify(mine)).not.toContain(minted.body.token);

    const all = (await events(acct.key, '?limit=100')).body.events as Array<{ action: string; target: { id: string } }>;
    expect(all.find((e) => e.action === 'webhook.created')?.target.id).toBe(hook.body.webhook.id);
    // The admin's own team is outside the organization: its policy change is the account's event.
    expect(all.find((e) => e.action === 'team_policy.changed')?.target.id).toBe(w.admin.teamId);
    expect(JSON.stringify(all)).not.toContain(hook.body.secret);
  });

  it('the admin CLI path: kill switch and approval locks as admin_cli, with before and after', async () => {
    const acct = await newAccount(app());
    await setKillSwitch(db(), acct.accountId, true);
    await setApprovalLock(db(), { accountId: acct.accountId, actionType: 'email_as_user', mode: 'manual', clear: false });
    const res = (await events(acct.key)).body.events;
    expect(res[0]).toMatchObject({ action: 'approval_lock.changed', actor: { type: 'admin_cli', id: null }, changes: { before: { lock: null }, after: { lock: { mode: 'manual', locked: true } } } });
    expect(res[1]).toMatchObject({ action: 'kill_switch.changed', actor: { type: 'admin_cli' }, target: { type: 'account', id: acct.accountId }, changes: { before: { killSwitch: false }, after: { killSwitch: true } } });
    await setKillSwitch(db(), acct.accountId, false);
  });

  it('approvals: approve, edit, cancel, undo and a rejection from the email link, each in the person’s name', async () => {
    const w = await auditWorld(app());
    const key = w.adminKey;
    const edited = await pendingCart(app(), w.admin.id, key);
    await call(app(), `/portal/carts/${edited.cartId}/dispatches/0/edit`, { key, method: 'PATCH', body: { body: 'Hi Bob, edited' } });
    const fresh = (await call(app(), `/portal/carts/${edited.cartId}`, { key })).body.cart.contentHash;
    await call(app(), `/portal/carts/${edited.cartId}/approve`, { key, body: { contentHash: fresh } });
    await call(app(), `/portal/carts/${edited.cartId}/dispatches/0/undo`, { key, body: {} });
    const cancelled = await pendingCart(app(), w.admin.id, key);
    await call(app(), `/portal/carts/${cancelled.cartId}/cancel`, { key, body: { reason: 'Not now' } });
    const rejected = await pendingCart(app(), w.admin.id, key);
    await rejectByLink(db(), w.acct.accountId, await rejectLinkFor(app(), rejected.cartId));

    const list = (await events(w.acct.key, '?limit=100')).body.events as Array<{ action: string; actor: { type: string; email?: string }; target: { id: string }; organizationId?: string }>;
    const about = (cartId: string) => list.filter((e) => e.target.id === cartId).map((e) => e.action);
    expect(about(edited.cartId)).toEqual(['cart.approved', 'cart.edited']);
    expect(list.some((e) => e.action === 'dispatch.undone')).toBe(true);
    expect(about(cancelled.cartId)).toEqual(['cart.cancelled']);
    const rejection = list.find((e) => e.target.id === rejected.cartId)!;
    expect(rejection).toMatchObject({ action: 'cart.rejected', actor: { type: 'user', email: w.admin.email }, organizationId: w.org.id });
  });

  it('a cart released by the owner’s settings: dispatch.released by the system', async () => {
    const w = await auditWorld(app());
    const { cartId } = await pendingCart(app(), w.admin.id, w.adminKey);
    // What an auto release leaves: approved, and by nobody.
    await db().update(carts).set({ status: 'approved', resolvedApprovalMode: 'auto', resolvedByUserId: null }).where(eq(carts.id, cartId));
    await beginExecution(db(), cartId, null);
    const released = (await events(w.acct.key, '?action=dispatch.released')).body.events;
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({ actor: { type: 'system', id: null }, target: { type: 'dispatch' }, changes: { after: { cartId, index: 0, type: 'email', mode: 'auto' } } });
  });

  it('a refused SAML response is saml.failed with the reason and the client’s address', async () => {
    const acct = await newAccount(app());
    const host = `audit-${Date.now().toString(36)}.steward.test`;
    const { setHostedDomain } = await import('@/server/hosted/accounts');
    await setHostedDomain(db(), acct.accountId, host);
    // node:http: fetch will not send a Host header of our choosing, and the Host picks the hosted app.
    const form = `SAMLResponse=${encodeURIComponent(Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64'))}`;
    const res = await new Promise<{ status: number }>((resolve, reject) => {
      const req = http.request(`${app().baseUrl}/sso/saml/acs`, { method: 'POST', headers: { Host: host, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(form), 'User-Agent': UA } }, (r) => {
        r.resume();
        r.on('end', () => resolve({ status: r.statusCode ?? 0 }));
      });
      req.on('error', reject);
      req.end(form);
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const [failed] = (await events(acct.key, '?action=saml.failed')).body.events;
    expect(failed).toMatchObject({ actor: { type: 'user', id: null }, target: { type: 'account', id: acct.accountId }, ip: '127.0.0.1', userAgent: UA });
    expect(failed.changes.after.reason).toBeTruthy();
  });

  it('email sign-in (next-auth): a link that signs nobody in is sign_in.failed, a sign-in sign_in.succeeded, with the address', async () => {
    const w = await auditWorld(app());
    const { authOptions } = await import('@/server/sign-in/auth-options');
    const { accounts } = await import('@/db/schema');
    const [account] = await db().select().from(accounts).where(eq(accounts.id, w.acct.accountId));
    const request = { ip: '203.0.113.9', userAgent: UA, requestId: null };
    const options = await authOptions(db(), account, { origin: 'http://127.0.0.1', secure: false, request });
    expect(await options.adapter!.useVerificationToken!({ identifier: w.admin.email, token: 'not-a-token' })).toBeNull();
    await options.events!.signIn!({ user: { id: w.admin.id, email: w.admin.email }, account: null });
    const list = (await events(w.acct.key, '?limit=10')).body.events;
    expect(list.find((e: { action: string }) => e.action === 'sign_in.failed')).toMatchObject({ actor: { type: 'user', id: null, email: w.admin.email }, ip: '203.0.113.9', userAgent: UA, changes: { after: { method: 'email' } } });
    expect(list.find((e: { action: string }) => e.action === 'sign_in.succeeded')).toMatchObject({ actor: { type: 'user', id: w.admin.id, email: w.admin.email }, organizationId: w.org.id, changes: { after: { method: 'email' } } });
  });
});

describe('GET /api/audit-events', () => {
  it('newest first, filtered by action, actor, target and time, a page at a time with the cursor', async () => {
    const acct = await newAccount(app());
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call(app(), '/api-keys', { key: acct.key, body: { label: `k${i}` } })).body.apiKey.id);
    const first = await events(acct.key, '?action=api_key.created&limit=2');
    expect(first.body).toMatchObject({ ok: true, hasMore: true });
    expect(first.body.events.map((e: { target: { id: string } }) => e.target.id)).toEqual([ids[4], ids[3]]);
    const second = await events(acct.key, `?action=api_key.created&limit=2&cursor=${first.body.cursor}`);
    expect(second.body.events.map((e: { target: { id: string } }) => e.target.id)).toEqual([ids[2], ids[1]]);
    const last = await events(acct.key, `?action=api_key.created&limit=2&cursor=${second.body.cursor}`);
    expect(last.body).toMatchObject({ hasMore: false, cursor: null });
    expect(last.body.events.map((e: { target: { id: string } }) => e.target.id)).toEqual([ids[0]]);

    const actorId = first.body.events[0].actor.id as string;
    expect((await events(acct.key, `?actorId=${actorId}`)).body.events.length).toBeGreaterThanOrEqual(5);
    expect((await events(acct.key, `?targetId=${ids[2]}`)).body.events).toHaveLength(1);
    expect((await events(acct.key, `?until=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).body.events).toEqual([]);
    expect((await events(acct.key, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.events).toEqual([]);
  });

  it('who may read: the account key (its account), an organization admin (its organization), nobody else', async () => {
    const w = await auditWorld(app());
    const other = await newAccount(app());
    await call(app(), '/api-keys', { key: other.key, body: { label: 'elsewhere' } });
    expect((await events(w.acct.key)).body.events.every((e: { accountId: string }) => e.accountId === w.acct.accountId)).toBe(true);
    expect((await events(w.outsiderKey)).status).toBe(403);
    expect((await events(w.acct.key, '', )).status).toBe(200);
    expect((await call(app(), '/audit-events', { key: w.acct.key, as: w.outsider.email })).status).toBe(403);
    expect((await call(app(), '/audit-events', { key: w.acct.key, as: w.admin.email })).status).toBe(200);
  });

  it('bad input is 400 naming each field', async () => {
    const acct = await newAccount(app());
    const res = await events(acct.key, '?limit=101&action=nope&since=yesterday&cursor=***');
    expect(res.status).toBe(400);
    for (const field of ['limit', 'action', 'since', 'cursor']) expect(res.body.error).toContain(field);
    const forged = await events(acct.key, `?cursor=${Buffer.from('not-a-cursor').toString('base64url')}`);
    expect(forged.status).toBe(400);
    expect(forged.body.error).toContain('cursor');
  });
});

describe('order', () => {
  it('events recorded in one transaction, in one millisecond, read back newest first in the order they were recorded', async () => {
    const acct = await newAccount(app());
    const by = { type: 'system' as const, id: null };
    // The clock stands still, as it does for events a fast transaction records within one millisecond.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const ids = await db()
      .transaction(async (tx) => {
        const out: string[] = [];
        for (let i = 0; i < 5; i++) out.push((await recordAudit(tx, by, 'team.updated', { type: 'team', id: `t${i}` }, { accountId: acct.accountId })).id);
        return out;
      })
      .finally(() => vi.useRealTimers());
    const listed = (await events(acct.key, '?action=team.updated')).body.events as Array<{ id: string; occurredAt: string }>;
    expect(listed.map((e) => e.id)).toEqual([...ids].reverse());
    expect(new Set(listed.map((e) => e.occurredAt)).size).toBe(5);
  });
});

describe('delivery and retention', () => {
  it('delivered as the webhook event audit.event: in the recording transaction with a sink, by the sweep without one', async () => {
    const acct = await newAccount(app());
    await call(app(), '/webhooks', { key: acct.key, body: { url: 'https://93.184.215.14/hooks', events: ['audit.event'] } });
    // No sink (as in the admin CLI): the event waits for the sweep.
    await setKillSwitch(db(), acct.accountId, true);
    await db().update(auditEvents).set({ occurredAt: new Date(Date.now() - 10_000) }).where(and(eq(auditEvents.accountId, acct.accountId), eq(auditEvents.action, 'kill_switch.changed')));
    const emit = (tx: Parameters<typeof emitWebhookEvent>[0], event: { accountId: string }) => emitWebhookEvent(tx, event.accountId, 'audit.event', event);
    // The sweep takes 500 a pass; other files' events in the shared database may fill more than one.
    let swept = 0;
    for (let n = await emitPending(db(), emit); n > 0; n = await emitPending(db(), emit)) swept += n;
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(await emitPending(db(), emit)).toBe(0);
    registerAuditSink(emit);
    try {
      await call(app(), '/api-keys', { key: acct.key, body: { label: 'hooked' } });
    } finally {
      registerAuditSink(null);
    }
    const delivered = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, acct.accountId));
    const kinds = delivered.filter((d) => d.eventType === 'audit.event').map((d) => (d.payload.data as { action: string }).action);
    expect(kinds.sort()).toEqual(['api_key.created', 'kill_switch.changed']);
    const payload = delivered.find((d) => (d.payload.data as { action: string }).action === 'api_key.created')!.payload;
    expect(payload).toMatchObject({ type: 'audit.event', data: { action: 'api_key.created', accountId: acct.accountId, actor: { type: 'api_key' } } });
    await setKillSwitch(db(), acct.accountId, false);
  });

  it('events older than the retention are dropped', async () => {
    const acct = await newAccount(app());
    await call(app(), '/api-keys', { key: acct.key, body: { label: 'old' } });
    await db().update(auditEvents).set({ occurredAt: sql`now() - interval '400 days'` }).where(eq(auditEvents.accountId, acct.accountId));
    await call(app(), '/api-keys', { key: acct.key, body: { label: 'new' } });
    expect(await dropExpired(db(), 365)).toBeGreaterThanOrEqual(1);
    const left = (await events(acct.key)).body.events;
    expect(left).toHaveLength(1);
    expect(left[0].changes.after.label).toBe('new');
  });
});
