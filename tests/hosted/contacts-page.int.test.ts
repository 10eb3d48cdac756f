import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { setHostedDomain } from '@/server/hosted/accounts';
import { call, newAccount, newUser, userKey } from '../helpers/client';
import { hostedCaller, procedureOutcome } from '../helpers/hosted-caller';
import { useTestServer } from '../helpers/server';

/*
 * The Contacts page's procedures (server/trpc/routers/contacts.ts): the person reads and changes
 * their own contacts through the contacts service, and what they change is what the API answers;
 * a teammate's contact shared with the team is theirs to read, not to change (403); another
 * user's contact is not found.
 */

const app = useTestServer();
const signedIn = (host: string, userId: string) => hostedCaller(app(), host, userId);
const codeOf = procedureOutcome;

describe('the Contacts page', () => {
  it('reads and changes the person’s own contact; a teammate’s shared one is read-only, another user’s is not found', async () => {
    const acct = await newAccount(app(), 'Contacts page');
    const host = `contacts-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(app().database.db, acct.accountId, host);
    const a = await newUser(app(), acct);
    const mate = await newUser(app(), acct, { teamId: a.teamId });
    const stranger = await newUser(app(), acct);
    const aKey = await userKey(app(), acct, a.id);
    const mateKey = await userKey(app(), acct, mate.id);
    const strangerKey = await userKey(app(), acct, stranger.id);
    const shared = (await call(app(), '/contacts', { key: mateKey, body: { email: 'landlord@shared.test', name: 'The landlord', scope: 'team' } })).body.contact.id;
    const theirs = (await call(app(), '/contacts', { key: strangerKey, body: { email: 'secret@stranger.test', name: 'Not yours' } })).body.contact.id;

    const page = await signedIn(host, a.id);
    const { contact } = await page.contacts.create({ email: 'marta@ruiz.test', name: 'Marta', title: 'Landlord' });
    const { contact: changed } = await page.contacts.update({
      contactId: contact.id,
      patch: { name: 'Marta Ruiz', company: { name: 'Ruiz Lettings' }, phones: [{ number: '+33 6 12 34 56 78', type: 'mobile', primary: true }], tags: ['home'], scope: 'team' },
    });
    expect(changed).toMatchObject({ name: 'Marta Ruiz', title: 'Landlord', scope: 'team', tags: ['home'] });
    // What the page changed is what the API answers.
    const seen = (await call(app(), `/contacts/${contact.id}`, { key: aKey })).body.contact;
    expect(seen).toMatchObject({ name: 'Marta Ruiz', company: { name: 'Ruiz Lettings' }, scope: 'team', tags: ['home'] });
    expect(seen.phones).toMatchObject([{ number: '+33 6 12 34 56 78', primary: true }]);
    // An emptied field is cleared; a field not sent stays.
    await page.contacts.update({ contactId: contact.id, patch: { title: null } });
    expect((await page.contacts.get({ contactId: contact.id })).contact).toMatchObject({ title: null, name: 'Marta Ruiz' });

    // The teammate's shared contact: read, not changed; the stranger's: not found, and unchanged.
    expect((await page.contacts.get({ contactId: shared })).contact.name).toBe('The landlord');
    expect(await codeOf(page.contacts.update({ contactId: shared, patch: { name: 'Changed' } }))).toBe('FORBIDDEN:403');
    expect(await codeOf(page.contacts.get({ contactId: theirs }))).toBe('NOT_FOUND:404');
    expect(await codeOf(page.contacts.update({ contactId: theirs, patch: { name: 'Changed' } }))).toBe('NOT_FOUND:404');
    expect((await call(app(), `/contacts/${theirs}`, { key: strangerKey })).body.contact.name).toBe('Not yours');
    expect((await call(app(), `/contacts/${shared}`, { key: mateKey })).body.contact.name).toBe('The landlord');
  });

  it('refuses a bad change with the field named, and changes nothing', async () => {
    const acct = await newAccount(app(), 'Contacts page bad input');
    const host = `contacts-bad-${Date.now().toString(36)}.steward.test`;
    await setHostedDomain(app().database.db, acct.accountId, host);
    const a = await newUser(app(), acct);
    const page = await signedIn(host, a.id);
    const { contact } = await page.contacts.create({ email: 'jonas@kiln.test', name: 'Jonas' });
    const refused = await page.contacts.update({ contactId: contact.id, patch: { phones: [{ number: 'x', type: 'mobile', primary: true }] } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe('BAD_REQUEST');
    expect((refused as TRPCError).message).toContain('number');
    expect((await page.contacts.get({ contactId: contact.id })).contact.phones).toEqual([]);
  });
});
