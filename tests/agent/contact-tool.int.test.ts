import { describe, expect, it } from 'vitest';
import { call, newAccount } from '../helpers/client';
import { useRunHarness } from './run-harness';

/*
 * save_contact: the agent adds or updates one of the user's contacts and its relationships, as the
 * user; the autonomy matrix's `contacts` cell decides whether it may on its own (auto) or must ask.
 */
const h = useRunHarness();
const { app, person, createTask, ended } = h;

async function run(p: Awaited<ReturnType<typeof person>>, title: string, args: Record<string, unknown>) {
  const taskId = await createTask(p, { title });
  h.state.llm.enqueue({ toolCalls: [{ name: 'save_contact', arguments: args }] }, { text: 'Saved.' });
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Keep this contact' } });
  expect((await ended(processed.body.process.executionId)).status).toBe('finished');
  const activities = await call(app(), `/tasks/${taskId}/activities`, { key: p.key });
  return activities.body.activities.find((a: { toolCall: { name: string } | null }) => a.toolCall?.name === 'save_contact').toolCall.output;
}

describe('save_contact', () => {
  it('creates and updates a contact with its relationships when contact changes are auto', async () => {
    const a = await person(await newAccount(app()));
    expect((await call(app(), '/contacts', { key: a.key, body: { email: 'boss@acme.example', name: 'Grace' } })).status).toBe(201);
    const saved = await run(a, 'Remember Alan', {
      email: 'alan@acme.example',
      name: 'Alan',
      title: 'Engineer',
      company: 'Acme',
      relationships: [
        { email: 'boss@acme.example', type: 'manager' },
        { email: 'nobody@acme.example', type: 'colleague' },
      ],
    });
    expect(saved).toMatchObject({ saved: true, created: true, email: 'alan@acme.example', notContacts: ['nobody@acme.example'] });
    const contact = (await call(app(), `/contacts/${saved.contactId}`, { key: a.key })).body.contact;
    expect(contact).toMatchObject({ name: 'Alan', title: 'Engineer', company: { name: 'Acme' } });
    expect(contact.outgoingRelationships).toMatchObject([{ type: 'manager', contact: { email: 'boss@acme.example' } }]);

    const updated = await run(a, 'Alan moved', { email: 'ALAN@acme.example', title: 'Director' });
    expect(updated).toMatchObject({ saved: true, created: false, contactId: saved.contactId });
    expect((await call(app(), `/contacts/${saved.contactId}`, { key: a.key })).body.contact).toMatchObject({ name: 'Alan', title: 'Director' });
  });

  it('changes nothing and says to ask when the user reviews contact changes', async () => {
    const a = await person(await newAccount(app()));
    const cell = await call(app(), `/users/${a.id}/preferences/supervision/matrix`, { method: 'PATCH', key: a.key, body: { matrix: { contacts: { mode: 'manual' } } } });
    expect(cell.status, JSON.stringify(cell.body)).toBe(200);
    const refused = await run(a, 'Remember Ada', { email: 'ada@acme.example', name: 'Ada' });
    expect(refused).toMatchObject({ saved: false, reason: expect.stringContaining('manual') });
    expect((await call(app(), '/contacts', { key: a.key })).body.total).toBe(0);
  });
});
