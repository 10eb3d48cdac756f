import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsFor } from '@/server/accounts/limits';
import { accountTierEndpoints } from '@/server/models/configuration';
import { attemptDelivery } from '@/server/webhooks/deliver';
import { call } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { startReceiver } from '../webhooks/receiver';
import { codeOf, consoleWorld, type HostedAccount } from './console-helpers';

/*
 * What a console member changes is what the API then does (spec 6: the console does through pages
 * what the admin CLI does), and every change is an audit event with the member as the actor: a
 * `user` actor with their id and email, read back through GET /audit-events.
 */

process.env.STEWARD_WEBHOOK_ALLOW_PRIVATE = '127.0.0.0/8';
const app = useTestServer();
const w = consoleWorld(app);

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** The newest event of `action` names this member as its actor. */
async function expectAuditedBy(acct: HostedAccount, action: string, member: { userId: string; email: string }) {
  const [event] = await w.audited(acct, action);
  expect(event, `${action} was recorded`).toBeDefined();
  expect(event!.actor).toEqual({ type: 'user', id: member.userId, email: member.email });
  return event!;
}

describe('the console’s changes reach the API, each audited with the member as actor', () => {
  it('the kill switch from the console answers 423 on the API, and lets go again', async () => {
    const acct = await w.hostedAccount('Kill co');
    const dev = await w.member(acct, 'developer');
    const person = await w.personWithAssistant(acct);
    const task = (title: string) => call(app(), '/tasks', { key: acct.key, as: person.email, body: { title, assistant: person.assistantId } });
    expect((await task('Before')).status).toBe(201);

    expect(await dev.api.console.settings.setKillSwitch({ engaged: true })).toEqual({ accountId: acct.accountId, killSwitch: true });
    const frozen = await task('During');
    expect(frozen.status).toBe(423);
    expect(frozen.body.error_code).toBe('KILL_SWITCH_ENGAGED');
    expect((await dev.api.console.settings.account()).account.killSwitch).toBe(true);
    const event = await expectAuditedBy(acct, 'kill_switch.changed', dev);
    expect(event.changes).toEqual({ before: { killSwitch: false }, after: { killSwitch: true } });

    await dev.api.console.settings.setKillSwitch({ engaged: false });
    expect((await task('After')).status).toBe(201);
  });

  it('models per tier, the default tiers, capability switches and approval locks', async () => {
    const acct = await w.hostedAccount('Policy co');
    const dev = await w.member(acct, 'developer');
    const person = await w.personWithAssistant(acct);

    await dev.api.console.settings.setModel({ tier: 'medium', model: 'acme-standard-1' });
    expect((await accountTierEndpoints(w.db(), acct.accountId)).medium).toMatchObject({ source: 'account', model: 'acme-standard-1' });
    const models = await dev.api.console.settings.models();
    expect(models.tiers.find((t) => t.tier === 'medium')).toMatchObject({ label: 'Standard', model: 'acme-standard-1', source: 'account' });
    expect((await expectAuditedBy(acct, 'model.changed', dev)).changes?.after).toMatchObject({ tier: 'medium', model: 'acme-standard-1', ownKey: false });
    // An own endpoint's key is sealed and never shown or recorded.
    await dev.api.console.settings.setModel({ tier: 'high', model: 'acme-large', baseUrl: 'https://models.acme.example/v1', apiKey: 'sk-acme-secret-123' });
    expect(JSON.stringify(await dev.api.console.settings.models())).not.toContain('sk-acme-secret-123');
    expect(JSON.stringify(await w.audited(acct, 'model.changed'))).not.toContain('sk-acme-secret-123');
    expect(await codeOf(dev.api.console.settings.setModel({ tier: 'medium', model: 'm', apiKey: 'k' }))).toBe('BAD_REQUEST:bad_request');

    await dev.api.console.settings.setDefaultTiers({ chat: 'low', task: 'high' });
    expect((await call(app(), '/settings/model-tiers', { key: acct.key })).body).toMatchObject({ modelTiers: { chat: 'low', task: 'high' } });
    await expectAuditedBy(acct, 'model_tiers.changed', dev);

    await dev.api.console.settings.setCapabilities({ capabilities: { browserAutomation: 'off', browserAutomationLocked: true } });
    expect((await call(app(), '/settings/capabilities', { key: acct.key })).body).toMatchObject({ capabilities: { browserAutomation: 'off', browserAutomationLocked: true }, effective: { capabilities: { browserAutomation: 'off' } } });
    await expectAuditedBy(acct, 'capabilities.changed', dev);

    await dev.api.console.settings.setLock({ actionType: 'email_as_assistant', mode: 'manual' });
    const matrix = await call(app(), `/users/${person.id}/preferences/supervision/matrix`, { key: acct.key, as: person.email });
    expect(matrix.body.supervisionMatrix).toMatchObject({ parentLockedCells: ['email_as_assistant'], lockedValues: { email_as_assistant: { mode: 'manual' } } });
    expect((await dev.api.console.settings.locks()).locks).toEqual([
      { level: 'account', organizationId: null, organizationName: null, actionType: 'email_as_assistant', mode: 'manual', timeBoxedWindowMin: null },
    ]);
    await expectAuditedBy(acct, 'approval_lock.changed', dev);
    await dev.api.console.settings.setLock({ actionType: 'email_as_assistant', clear: true });
    expect((await dev.api.console.settings.locks()).locks).toEqual([]);
  });

  it('limits, rate limits and budgets', async () => {
    const acct = await w.hostedAccount('Limits co');
    const dev = await w.member(acct, 'developer');

    const set = await dev.api.console.limits.setLimits({ runMaxModelCalls: 7, taskTreeMax: null });
    expect(set.overrides).toEqual({ runMaxModelCalls: 7 });
    expect((await limitsFor(w.db(), acct.accountId)).runMaxModelCalls).toBe(7);
    expect((await expectAuditedBy(acct, 'limits.changed', dev)).changes).toEqual({ before: { overrides: {} }, after: { overrides: { runMaxModelCalls: 7 } } });
    expect(await codeOf(dev.api.console.limits.setLimits({ runMaxModelCalls: 0 }))).toBe('BAD_REQUEST');

    await dev.api.console.limits.setRateLimits({ reads: 2, writes: null });
    await expectAuditedBy(acct, 'rate_limits.changed', dev);
    await call(app(), '/me', { key: acct.key });
    await call(app(), '/me', { key: acct.key });
    expect((await call(app(), '/me', { key: acct.key })).status).toBe(429);
    await dev.api.console.limits.setRateLimits({ reads: null, writes: null });

    const person = await w.personWithAssistant(acct);
    const budget = await dev.api.console.limits.createBudget({ scope: 'user', userEmail: person.email, period: 'month', limitCredits: 25 });
    expect(budget.budget).toMatchObject({ scope: 'user', scopeId: person.id, limitCredits: 25 });
    await expectAuditedBy(acct, 'budget.created', dev);
    await dev.api.console.limits.topUp({ budgetId: budget.budget.id, credits: 5 });
    await expectAuditedBy(acct, 'budget.topped_up', dev);
    const rest = await call(app(), `/budgets/${budget.budget.id}`, { key: acct.key });
    expect(rest.body.budget.current).toMatchObject({ limitCredits: 30, toppedUpCredits: 5 });
    const listed = await dev.api.console.limits.budgets();
    expect(listed.names[person.id]).toBe(person.email);
    await dev.api.console.limits.deleteBudget({ budgetId: budget.budget.id });
    expect((await call(app(), `/budgets/${budget.budget.id}`, { key: acct.key })).status).toBe(404);
    await expectAuditedBy(acct, 'budget.deleted', dev);
  });

  it('account keys and certificates', async () => {
    const acct = await w.hostedAccount('Keys co');
    const dev = await w.member(acct, 'developer');

    const created = await dev.api.console.access.createKey({ label: 'CI deploys' });
    expect(created.apiKey).toMatchObject({ label: 'CI deploys', user: null, organization: null, key: expect.stringMatching(/^ak_live_[0-9a-f]{64}$/) });
    const me = await call(app(), '/me', { key: created.apiKey.key! });
    expect(me.body).toMatchObject({ accountId: acct.accountId, userId: null, orgId: null });
    expect((await expectAuditedBy(acct, 'api_key.created', dev)).target).toEqual({ type: 'api_key', id: created.apiKey.id });
    const keys = await dev.api.console.access.keys();
    expect(keys.apiKeys.map((k) => k.id)).toContain(created.apiKey.id);
    expect(JSON.stringify(keys)).not.toContain(created.apiKey.key);
    await dev.api.console.access.revokeKey({ keyId: created.apiKey.id });
    expect((await call(app(), '/me', { key: created.apiKey.key! })).status).toBe(401);
    await expectAuditedBy(acct, 'api_key.revoked', dev);
    await dev.api.console.access.deleteKey({ keyId: created.apiKey.id });
    await expectAuditedBy(acct, 'api_key.deleted', dev);

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kid } = await dev.api.console.access.registerCertificate({ publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'));
    expect((await call(app(), '/me', { key: token })).body.accountId).toBe(acct.accountId);
    expect((await dev.api.console.access.certificates()).certificates).toEqual([{ kid, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), status: 'active', createdAt: expect.any(String), revokedAt: null }]);
    await expectAuditedBy(acct, 'certificate.registered', dev);
    await dev.api.console.access.revokeCertificate({ kid });
    expect((await call(app(), '/me', { key: token })).status).toBe(401);
    await expectAuditedBy(acct, 'certificate.revoked', dev);
    expect(await codeOf(dev.api.console.access.registerCertificate({ publicKeyPem: 'not a key' }))).toBe('BAD_REQUEST:bad_request');
  });

  it('phone-line requests: fulfilled and dismissed from the console, as the user then sees them', async () => {
    const acct = await w.hostedAccount('Lines co');
    const dev = await w.member(acct, 'developer');
    const person = await w.personWithAssistant(acct);
    const asked = await call(app(), '/phone-line-requests', { key: acct.key, as: person.email, body: { requestedChannels: { sms: true }, notes: 'Paris area' } });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const pending = await dev.api.console.channels.phoneLines({ status: 'pending' });
    expect(pending.requests).toEqual([expect.objectContaining({ id: asked.body.request.id, status: 'pending', notes: 'Paris area', user: { id: person.id, email: person.email, name: null }, assistantName: 'Ada' })]);

    const number = `+1628555${String(Date.now()).slice(-4)}`;
    const done = await dev.api.console.channels.fulfilPhoneLine({ requestId: asked.body.request.id, number, channels: ['sms'] });
    expect(done).toMatchObject({ request: { status: 'fulfilled' }, line: { number, channels: ['sms'] } });
    expect((await call(app(), '/phone-line-requests/mine', { key: acct.key, as: person.email })).body.request).toMatchObject({ status: 'fulfilled' });
    expect((await expectAuditedBy(acct, 'phone_line.assigned', dev)).changes?.after).toMatchObject({ number, channels: ['sms'] });
    expect(await codeOf(dev.api.console.channels.fulfilPhoneLine({ requestId: asked.body.request.id, number }))).toBe('CONFLICT:request_not_pending');

    const other = await w.personWithAssistant(acct);
    const second = await call(app(), '/phone-line-requests', { key: acct.key, as: other.email, body: { requestedChannels: { whatsapp: true } } });
    await dev.api.console.channels.dismissPhoneLine({ requestId: second.body.request.id, reason: 'No WhatsApp numbers this month' });
    expect((await call(app(), '/phone-line-requests/mine', { key: acct.key, as: other.email })).body.request).toMatchObject({ status: 'dismissed', dismissalReason: 'No WhatsApp numbers this month' });
    await expectAuditedBy(acct, 'phone_line.dismissed', dev);
  });

  it('the account’s Slack marketplace app for an account-wide assistant, listed with the Teams bot', async () => {
    const acct = await w.hostedAccount('Slack co');
    const dev = await w.member(acct, 'developer');
    const assistant = await call(app(), '/assistants', { key: acct.key, body: { name: 'Concierge', email: `concierge-${Date.now()}@assistants.example.com` } });
    expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
    const assistantId = assistant.body.assistant.id as string;
    expect((await dev.api.console.channels.apps()).slack.accountAssistants).toEqual([{ id: assistantId, name: 'Concierge' }]);
    const made = await dev.api.console.channels.createMarketplaceApp({ assistantId, botDisplayName: 'Concierge' });
    expect(made.slackApp).toMatchObject({ assistant: assistantId, kind: 'marketplace', botDisplayName: 'Concierge' });
    expect((await call(app(), `/slack-apps/${made.slackApp.id}`, { key: acct.key })).body.slackApp).toMatchObject({ kind: 'marketplace' });
    const apps = await dev.api.console.channels.apps();
    expect(apps.slack.apps).toEqual([expect.objectContaining({ id: made.slackApp.id, kind: 'marketplace', assistant: { id: assistantId, name: 'Concierge' }, owner: null, installations: [] })]);
    expect(apps.teams).toEqual({ botConfigured: false, linkedIdentities: 0, connections: [] });
    await expectAuditedBy(acct, 'slack_app.created', dev);
  });

  it('webhook endpoints, their delivery log, and a resend that is delivered again, signed, with the same event', async () => {
    const acct = await w.hostedAccount('Hooks co');
    const dev = await w.member(acct, 'developer');
    const created = await dev.api.console.webhooks.create({ url: receiver.url, events: ['task.status_changed'], description: 'CRM' });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await call(app(), `/webhooks/${created.webhook.id}`, { key: acct.key })).body.webhook).toMatchObject({ url: receiver.url, description: 'CRM' });
    await expectAuditedBy(acct, 'webhook.created', dev);

    const test = await dev.api.console.webhooks.test({ webhookId: created.webhook.id });
    // No engine in this test: the delivery is made by the deliverer itself, to the loopback receiver.
    expect(await codeOf(dev.api.console.webhooks.resend({ webhookId: created.webhook.id, deliveryId: test.delivery.id }))).toBe('CONFLICT:delivery_pending');
    expect(await attemptDelivery(w.db(), test.delivery.id)).toEqual({ done: true, status: 'succeeded' });
    const log = await dev.api.console.webhooks.deliveries({ webhookId: created.webhook.id });
    expect(log.deliveries).toEqual([expect.objectContaining({ id: test.delivery.id, status: 'succeeded', attempts: 1, lastStatusCode: 200 })]);

    const resent = await dev.api.console.webhooks.resend({ webhookId: created.webhook.id, deliveryId: test.delivery.id });
    expect(resent.delivery).toMatchObject({ status: 'pending', eventType: 'webhook.test', payload: test.delivery.payload });
    expect(resent.delivery.id).not.toBe(test.delivery.id);
    expect((await expectAuditedBy(acct, 'webhook_delivery.resent', dev)).changes?.after).toEqual({ webhookId: created.webhook.id, resentFrom: test.delivery.id, eventType: 'webhook.test' });
    expect(await attemptDelivery(w.db(), resent.delivery.id)).toEqual({ done: true, status: 'succeeded' });
    const got = receiver.received.filter((m) => m.headers['webhook-id'] === resent.delivery.id);
    expect(got).toHaveLength(1);
    const verified = new Webhook(created.secret).verify(got[0]!.body, { 'webhook-id': resent.delivery.id, 'webhook-timestamp': String(got[0]!.headers['webhook-timestamp']), 'webhook-signature': String(got[0]!.headers['webhook-signature']) });
    expect(verified).toEqual(test.delivery.payload);
    expect((await dev.api.console.webhooks.deliveries({ webhookId: created.webhook.id })).total).toBe(2);

    await dev.api.console.webhooks.update({ webhookId: created.webhook.id, patch: { status: 'disabled' } });
    expect(await codeOf(dev.api.console.webhooks.resend({ webhookId: created.webhook.id, deliveryId: test.delivery.id }))).toBe('CONFLICT:webhook_disabled');
    await expectAuditedBy(acct, 'webhook.updated', dev);
    await dev.api.console.webhooks.delete({ webhookId: created.webhook.id });
    expect((await call(app(), `/webhooks/${created.webhook.id}`, { key: acct.key })).status).toBe(404);
    await expectAuditedBy(acct, 'webhook.deleted', dev);
  });
});
