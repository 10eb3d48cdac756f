import { describe, expect, it } from 'vitest';
import { contactRelationships } from '@/db/schema';
import { BulkImportResponse, ContactEnvelope, ListContactsResponse } from '@/server/contacts/contracts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

async function twoUsers() {
  const acct = await newAccount(app());
  const a = await newUser(app(), acct);
  const b = await newUser(app(), acct);
  return { acct, a: { ...a, key: await userKey(app(), acct, a.id) }, b: { ...b, key: await userKey(app(), acct, b.id) } };
}

describe('contacts', () => {
  it('creates with email required; refuses an address one of the user’s contacts already has', async () => {
    const { a, b } = await twoUsers();
    const res = await call(app(), '/contacts', {
      key: a.key,
      body: { email: 'Ada@Example.org', name: 'Ada', emails: [{ address: 'ada@home.org', type: 'personal' }], company: { name: 'Acme' }, tags: ['vip'] },
    });
    expect(res.status).toBe(201);
    const { contact } = ContactEnvelope.parse(res.body);
    expect(contact).toMatchObject({ email: 'ada@example.org', name: 'Ada', user: a.id, status: 'active', source: { type: 'manual' }, consumer: null });
    expect(contact.emails.map((e) => [e.address, e.primary])).toEqual([
      ['ada@example.org', true],
      ['ada@home.org', false],
    ]);
    expect(contact.outgoingRelationships).toEqual([]);
    expect((await call(app(), '/contacts', { key: a.key, body: { name: 'No email' } })).status).toBe(400);
    const dup = await call(app(), '/contacts', { key: a.key, body: { email: 'someone@else.org', emails: [{ address: 'ADA@home.org' }] } });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toContain('ada@home.org');
    // Another user may hold the same address in their own contacts.
    expect((await call(app(), '/contacts', { key: b.key, body: { email: 'ada@example.org' } })).status).toBe(201);
  });

  it('links the consumer when the contact is a user of the app', async () => {
    const { a, b } = await twoUsers();
    const res = await call(app(), '/contacts', { key: a.key, body: { email: b.email } });
    expect(res.body.contact.consumer).toEqual({ id: b.id, name: null, email: b.email });
  });

  it('PUT changes only the fields sent; DELETE removes; another user gets 404', async () => {
    const { a, b } = await twoUsers();
    const c = (await call(app(), '/contacts', { key: a.key, body: { email: 'x@example.org', name: 'X', title: 'CTO' } })).body.contact;
    const put = await call(app(), `/contacts/${c.id}`, { key: a.key, method: 'PUT', body: { name: 'Xavier', social: { linkedIn: 'in/x' }, lastContactedAt: '2026-01-02T03:04:05Z' } });
    expect(put.status).toBe(200);
    expect(put.body.contact).toMatchObject({ name: 'Xavier', title: 'CTO', social: { linkedIn: 'in/x' }, lastContactedAt: '2026-01-02T03:04:05.000Z' });
    expect((await call(app(), `/contacts/${c.id}`, { key: b.key })).status).toBe(404);
    expect((await call(app(), `/contacts/${c.id}`, { key: b.key, method: 'PUT', body: { name: 'hijack' } })).status).toBe(404);
    expect((await call(app(), `/contacts/${c.id}`, { key: b.key, method: 'DELETE' })).status).toBe(404);
    expect((await call(app(), `/contacts/${c.id}`, { key: a.key })).body.contact.name).toBe('Xavier');
    const del = await call(app(), `/contacts/${c.id}`, { key: a.key, method: 'DELETE' });
    expect(del.body).toEqual({ ok: true, contact: { id: c.id, deleted: true, message: expect.any(String) } });
    expect((await call(app(), `/contacts/${c.id}`, { key: a.key })).status).toBe(404);
    // The address is free again.
    expect((await call(app(), '/contacts', { key: a.key, body: { email: 'x@example.org' } })).status).toBe(201);
  });

  it('lists with filters; an account key lists a user’s contacts with userId, else 400', async () => {
    const { acct, a, b } = await twoUsers();
    await call(app(), '/contacts', { key: a.key, body: { email: 'ann@acme.org', name: 'Ann', company: { name: 'Acme' }, tags: ['vip'] } });
    await call(app(), '/contacts', { key: a.key, body: { email: 'bob@beta.org', name: 'Bob', source: { type: 'crm' }, scope: 'team', team: a.teamId } });
    await call(app(), '/contacts', { key: b.key, body: { email: 'carl@gamma.org', name: 'Carl' } });
    const names = async (qs: string, cred: object = { key: a.key }) =>
      ListContactsResponse.parse((await call(app(), `/contacts?${qs}`, cred)).body).contacts.map((c) => c.name);
    expect(await names('')).toEqual(['Bob', 'Ann']);
    expect(await names('search=ANN')).toEqual(['Ann']);
    expect(await names('q=acme')).toEqual(['Ann']);
    expect(await names('tags=vip,other')).toEqual(['Ann']);
    expect(await names('sourceType=crm')).toEqual(['Bob']);
    expect(await names('scope=team')).toEqual(['Bob']);
    expect(await names('status=archived')).toEqual([]);
    expect(await names(`userId=${b.id}`, { key: acct.key })).toEqual(['Carl']);
    expect((await call(app(), '/contacts', { key: acct.key })).status).toBe(400);
    expect((await call(app(), '/contacts?userId=ffffffffffffffffffffffff', { key: acct.key })).status).toBe(404);
    const other = await newAccount(app());
    expect((await call(app(), `/contacts?userId=${b.id}`, { key: other.key })).status).toBe(404);
  });

  it('bulk import: creates, updates by email, and reports rows without email or repeated in the batch', async () => {
    const { a } = await twoUsers();
    await call(app(), '/contacts', { key: a.key, body: { email: 'known@example.org', name: 'Old name' } });
    const res = await call(app(), '/contacts/bulk-import', {
      key: a.key,
      body: {
        contacts: [
          { email: 'new1@example.org', name: 'New One', phone: '+15551234567' },
          { email: 'KNOWN@example.org', name: 'New name' },
          { name: 'No email' },
          { email: 'new1@example.org', name: 'Again' },
          { email: 'new2@example.org', tags: ['imported'] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(BulkImportResponse.parse(res.body).bulkImport).toEqual({
      success: false,
      total: 5,
      created: 2,
      updated: 1,
      skipped: 2,
      errors: [
        { index: 2, email: null, error: expect.stringContaining('email') },
        { index: 3, email: 'new1@example.org', error: expect.stringContaining('batch') },
      ],
    });
    const list = await call(app(), '/contacts?perPage=10', { key: a.key });
    expect(list.body.total).toBe(3);
    const known = list.body.contacts.find((c: { email: string }) => c.email === 'known@example.org');
    expect(known.name).toBe('New name');
    const one = list.body.contacts.find((c: { email: string }) => c.email === 'new1@example.org');
    expect(one).toMatchObject({ phones: [{ number: '+15551234567' }], source: { type: 'imported' } });
    const tooMany = await call(app(), '/contacts/bulk-import', { key: a.key, body: { contacts: Array.from({ length: 1001 }, (_, i) => ({ email: `u${i}@x.org` })) } });
    expect(tooMany.status).toBe(400);
  });

  it('merge combines fields, moves relationships, honours preferredEmail and deletes the other', async () => {
    const { a, b } = await twoUsers();
    const mk = async (body: object) => (await call(app(), '/contacts', { key: a.key, body })).body.contact;
    const keep = await mk({ email: 'dana@work.org', name: 'Dana', tags: ['vip'] });
    const other = await mk({ email: 'dana@home.org', title: 'Founder', phones: [{ number: '+15550001111' }], tags: ['friend'] });
    const third = await mk({ email: 'eve@example.org', name: 'Eve' });
    const db = app().database.db;
    await db.insert(contactRelationships).values([
      { userId: a.id, fromContactId: other.id, toContactId: third.id, type: 'colleague' },
      { userId: a.id, fromContactId: third.id, toContactId: other.id, type: 'introduced' },
    ]);
    expect((await call(app(), `/contacts/${keep.id}/merge`, { key: b.key, body: { mergeContactId: other.id } })).status).toBe(404);
    expect((await call(app(), `/contacts/${keep.id}/merge`, { key: a.key, body: { mergeContactId: keep.id } })).status).toBe(400);
    const bad = await call(app(), `/contacts/${keep.id}/merge`, { key: a.key, body: { mergeContactId: other.id, preferredEmail: 'nobody@x.org' } });
    expect(bad.status).toBe(400);

    const res = await call(app(), `/contacts/${keep.id}/merge`, { key: a.key, body: { mergeContactId: other.id, preferredEmail: 'dana@home.org' } });
    expect(res.status).toBe(200);
    const merged = res.body.contact;
    expect(merged).toMatchObject({ id: keep.id, name: 'Dana', title: 'Founder', email: 'dana@home.org', tags: ['vip', 'friend'] });
    expect(merged.phones).toEqual([expect.objectContaining({ number: '+15550001111' })]);
    expect(merged.emails.map((e: { address: string; primary: boolean }) => [e.address, e.primary]).sort()).toEqual([
      ['dana@home.org', true],
      ['dana@work.org', false],
    ]);
    expect(merged.outgoingRelationships).toEqual([expect.objectContaining({ type: 'colleague', contact: expect.objectContaining({ id: third.id }) })]);
    expect(merged.incomingRelationships).toEqual([expect.objectContaining({ type: 'introduced', contact: expect.objectContaining({ id: third.id }) })]);
    expect((await call(app(), `/contacts/${other.id}`, { key: a.key })).status).toBe(404);
    // Both addresses still point at the merged contact.
    expect((await call(app(), '/contacts', { key: a.key, body: { email: 'dana@work.org' } })).status).toBe(400);
  });
});
