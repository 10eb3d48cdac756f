import { expect } from 'vitest';
import { assignPhoneLine } from '@/server/channels/phone-lines';
import type { useCartHarness } from '../approvals/execution-harness';
import { call, newAccount } from './client';

/**
 * A user of a new account whose assistant has a voice (and SMS) line, and who has a verified phone:
 * the caller every voice test starts from. Numbers come from the test file's own sequence.
 */
export async function voiceLineOwner(h: ReturnType<typeof useCartHarness>, nextNumber: () => string) {
  const acct = await newAccount(h.app());
  const p = await h.person(acct);
  const phone = nextNumber();
  expect((await call(h.app(), '/identifiers', { key: acct.key, body: { type: 'phone', value: phone, userId: p.id, verified: true } })).status).toBe(201);
  const request = await call(h.app(), '/phone-line-requests', { key: p.key, body: { requestedChannels: { sms: true, voice: true } } });
  expect(request.status, JSON.stringify(request.body)).toBe(201);
  const line = nextNumber();
  await assignPhoneLine(h.db(), { requestId: request.body.request.id, number: line, channels: 'sms,voice' });
  return { ...p, acct, phone, line, acctKey: acct.key };
}
