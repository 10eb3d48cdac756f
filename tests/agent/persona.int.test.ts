import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '@/db/schema';
import { useCartHarness, emailCall } from '../approvals/execution-harness';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';

/*
 * What the organization, the team and the assistant's profile tell the assistant (spec document
 * 1): the organization's and team's generalInfo, the writing style, signature phrases, tagline and
 * pronouns reach the system message; the signature and the team's branding reach the messages the
 * assistant sends as itself (staged, so the person approves exactly that); branding off, no line.
 */
const h = useCartHarness();

describe('the assistant’s persona and background', () => {
  it('reaches the system message, and the signature and branding reach the staged email', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    const org = await call(h.app(), '/organizations', { key: acct.key, body: { name: 'Acme Travel', generalInfo: 'We sell train tickets across Europe.' } });
    expect(org.status, JSON.stringify(org.body)).toBe(201);
    await h.db().update(users).set({ organizationId: org.body.organization.id, organizationRole: 'member' }).where(eq(users.id, p.id));
    const team = await call(h.app(), `/teams/${p.teamId}`, { method: 'PUT', key: acct.key, body: { generalInfo: 'The night-train desk: bookings after 6 pm.' } });
    expect(team.status, JSON.stringify(team.body)).toBe(200);
    const profile = await call(h.app(), `/assistants/${p.assistantId}`, {
      method: 'PUT',
      key: acct.key,
      body: {
        writingStyle: { professionalism: 3, humor: 1, emojiUse: 0, externalCommunication: 'Formal, short sentences.' },
        signature: 'Ada\nNight-train desk',
        tagline: 'Your rail companion',
        pronouns: 'she/her',
      },
    });
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);

    const { runId } = await h.stagingRun(p, [emailCall()], { title: 'Persona check' });
    const request = h.state.llm.requests.find((r: ModelRequest) => JSON.stringify(r.messages).includes('Task: Persona check'))!;
    const system = String(request.messages[0].content);
    expect(system).toContain('We sell train tickets across Europe.');
    expect(system).toContain('The night-train desk: bookings after 6 pm.');
    expect(system).toContain('professionalism: plenty, humor: a little, emoji: none');
    expect(system).toContain('When you write to people outside the user: Formal, short sentences.');
    expect(system).toContain('Your tagline: Your rail companion.');
    expect(system).toContain('Your pronouns: she/her.');
    const cart = await h.readCart(p, (await h.cartOfRun(runId)).id);
    expect(cart.dispatches[0].body).toBe(`Hi Bob,\nDinner on Friday at 8?\nAda\n\n-- \nAda\nNight-train desk\nSent by ${cart.assistantName}, AI assistant to ${p.email}.`);
  });

  it('with the team’s branding off, the staged message carries only the model’s words', async () => {
    const acct = await newAccount(h.app());
    const p = await h.person(acct);
    expect((await call(h.app(), `/teams/${p.teamId}`, { method: 'PUT', key: acct.key, body: { brandingOnMessages: false } })).status).toBe(200);
    const { runId } = await h.stagingRun(p, [emailCall()], { title: 'No branding' });
    const cart = await h.readCart(p, (await h.cartOfRun(runId)).id);
    expect(cart.dispatches[0].body).toBe('Hi Bob,\nDinner on Friday at 8?\nAda');
  });
});
