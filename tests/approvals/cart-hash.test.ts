import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DispatchContent } from '@/db/schema';
import { cartContentHash, type ShownDispatch } from '@/server/approvals/cart-hash';

/*
 * contentHash is what an approval is checked against: equal for equal shown content however it
 * was built, different as soon as any shown field of any dispatch differs.
 */

const text = fc.string({ maxLength: 40 });
const json: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const content: fc.Arbitrary<DispatchContent> = fc.record({
  type: fc.constantFrom('email', 'message', 'calendar_event', 'skill_action'),
  platform: fc.constantFrom('email', 'sms', 'slack', 'calendar'),
  from: fc.option(fc.emailAddress(), { nil: null }),
  to: fc.array(fc.emailAddress(), { maxLength: 3 }),
  cc: fc.array(fc.emailAddress(), { maxLength: 2 }),
  bcc: fc.array(fc.emailAddress(), { maxLength: 2 }),
  subject: fc.option(text, { nil: null }),
  body: fc.option(text, { nil: null }),
  description: fc.option(text, { nil: null }),
  payload: fc.option(json, { nil: null }),
  files: fc.array(fc.record({ filename: text, mimeType: fc.constantFrom('text/plain', 'application/pdf'), size: fc.nat(), fileId: fc.constantFrom('f1', 'f2', 'f3') }), { maxLength: 2 }),
  validUntil: fc.option(fc.constantFrom('2099-01-01T00:00:00+02:00', '2099-01-01T00:00:00Z'), { nil: null }),
  evergreen: fc.boolean(),
});
const cart = fc.array(content, { minLength: 1, maxLength: 4 }).map((cs) => cs.map((c, index): ShownDispatch => ({ index, content: c })));

/** The same value rebuilt with every object's keys in reverse order. */
const reordered = <T>(v: T): T =>
  Array.isArray(v) ? (v.map(reordered) as T) : v && typeof v === 'object' ? (Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reordered(x)])) as T) : v;

/** A different value of the same field, for every field the person is shown. */
const changes: Record<keyof DispatchContent, (c: DispatchContent) => DispatchContent> = {
  type: (c) => ({ ...c, type: c.type === 'email' ? 'message' : 'email' }),
  platform: (c) => ({ ...c, platform: `${c.platform}-x` }),
  from: (c) => ({ ...c, from: c.from === 'x@example.org' ? 'y@example.org' : 'x@example.org' }),
  to: (c) => ({ ...c, to: [...c.to, 'new@example.org'] }),
  cc: (c) => ({ ...c, cc: [...c.cc, 'new@example.org'] }),
  bcc: (c) => ({ ...c, bcc: [...c.bcc, 'new@example.org'] }),
  subject: (c) => ({ ...c, subject: `${c.subject ?? ''}!` }),
  body: (c) => ({ ...c, body: `${c.body ?? ''} ` }),
  description: (c) => ({ ...c, description: `${c.description ?? ''}.` }),
  payload: (c) => ({ ...c, payload: { ...(c.payload ?? {}), 'changed-by-the-test': true } }),
  files: (c) => ({ ...c, files: [...c.files, { filename: 'a.txt', mimeType: 'text/plain', size: 1, fileId: 'f' }] }),
  validUntil: (c) => ({ ...c, validUntil: c.validUntil === '2100-01-01T00:00:00Z' ? '2100-01-02T00:00:00Z' : '2100-01-01T00:00:00Z' }),
  evergreen: (c) => ({ ...c, evergreen: !c.evergreen }),
};

describe('contentHash', () => {
  it('is a SHA-256 that depends on the content only, not on key order or the order dispatches are given in', () => {
    fc.assert(
      fc.property(cart, (ds) => {
        const h = cartContentHash(ds);
        expect(h).toMatch(/^[0-9a-f]{64}$/);
        expect(cartContentHash(structuredClone(ds))).toBe(h);
        expect(cartContentHash(reordered(ds))).toBe(h);
        expect(cartContentHash([...ds].reverse())).toBe(h);
      }),
    );
  });

  it('changes when any shown field of any dispatch changes, and when a dispatch moves or goes', () => {
    fc.assert(
      fc.property(cart, fc.nat(), fc.constantFrom(...(Object.keys(changes) as (keyof DispatchContent)[])), (ds, at, field) => {
        const i = at % ds.length;
        const changed = ds.map((d, j) => (j === i ? { ...d, content: changes[field](d.content) } : d));
        expect(cartContentHash(changed)).not.toBe(cartContentHash(ds));
        expect(cartContentHash(ds.map((d) => (d.index === i ? { ...d, index: ds.length + 1 } : d)))).not.toBe(cartContentHash(ds));
        if (ds.length > 1) expect(cartContentHash(ds.filter((_, j) => j !== i))).not.toBe(cartContentHash(ds));
      }),
    );
  });

  it('keeps recipients and attachments in the order shown', () => {
    const base: DispatchContent = {
      type: 'email', platform: 'email', from: null, to: ['a@example.org', 'b@example.org'], cc: [], bcc: [], subject: 's', body: 'b',
      description: null, payload: null, files: [], validUntil: null, evergreen: false,
    };
    expect(cartContentHash([{ index: 0, content: base }])).not.toBe(cartContentHash([{ index: 0, content: { ...base, to: ['b@example.org', 'a@example.org'] } }]));
  });
});
