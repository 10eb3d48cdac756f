import { describe, expect, it } from 'vitest';
import { createServiceKey } from '@/server/prompts/service-keys';
import { useRunHarness } from '../agent/run-harness';
import { call, newAccount } from '../helpers/client';
import type { ModelRequest } from '../helpers/scripted-model';

/*
 * Instruction and prompt skills (spec 2, "other skill kinds package instructions, … prompts"):
 * POST /skills serves them, and a run's system message carries what applies in a delimited
 * section: `always` skills on every run of their users, `when_named` ones when the task's skills[]
 * names them; a prompt skill is the tenant prompt's published version rendered with its variables.
 */

const h = useRunHarness();
const { app, person, createTask, ended } = h;

const systemOf = (r: ModelRequest) => String(r.messages.find((m) => m.role === 'system')?.content ?? '');

async function runOnce(p: Awaited<ReturnType<typeof person>>, body: Record<string, unknown>) {
  const taskId = await createTask(p, body);
  h.state.llm.enqueue({ text: 'Done.' });
  const processed = await call(app(), `/tasks/${taskId}/process`, { key: p.key, body: { message: 'Go' } });
  expect(processed.status, JSON.stringify(processed.body)).toBe(200);
  expect((await ended(processed.body.process.executionId)).status).toBe('finished');
  return systemOf(h.state.llm.requests.at(-1)!);
}

describe('instructions and prompt skills', () => {
  it('are created through POST /skills and reach the runs they apply to', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const b = await person(acct);
    // The account's tenant prompt API: a block, a prompt, two published versions.
    const { serviceKey } = await createServiceKey(app().database.db, acct.accountId);
    const tenant = (path: string, body?: unknown, method?: string) => call(app(), `/tenants/${acct.accountId}${path}`, { key: serviceKey, body, method });
    expect((await tenant('/blocks', { blockName: 'tone_guide', content: 'Be warm.', description: 'Tone' })).status).toBeLessThan(300);
    const prompt = {
      promptName: 'support_voice',
      category: 'support',
      description: 'How to answer customers',
      systemChunks: [{ content: 'You help {{customer_name}} with {{product}}. {{block:tone_guide}}', order: 1 }],
      variables: [
        { name: 'customer_name', type: 'string' },
        { name: 'product', type: 'string', metadata: { default: 'Steward' } },
      ],
    };
    expect((await tenant('/prompts', prompt)).status).toBeLessThan(300);
    expect((await tenant('/prompts/support_voice/publish', undefined, 'POST')).status).toBe(200);
    await tenant('/prompts/support_voice', { systemChunks: [{ content: 'Version two text.', order: 1 }] }, 'PATCH');
    expect((await tenant('/prompts/support_voice/publish', undefined, 'POST')).status).toBe(200);

    const always = await call(app(), '/skills', { key: a.key, body: { kind: 'instructions', name: 'house-style', instructions: 'Always sign emails as Ada Lovelace.' } });
    expect(always.status, JSON.stringify(always.body)).toBe(201);
    expect(always.body.skill).toMatchObject({ kind: 'instructions', scope: 'user', applies: 'always', instructions: 'Always sign emails as Ada Lovelace.', prompt: null });
    const named = await call(app(), '/skills', { key: a.key, body: { kind: 'instructions', name: 'travel-policy', instructions: 'Book economy class only.', applies: 'when_named' } });
    expect(named.status).toBe(201);
    const promptSkill = await call(app(), '/skills', {
      key: acct.key,
      body: { kind: 'prompt', name: 'support', promptName: 'support_voice', promptVersion: 1, variables: { customer_name: 'Acme Corp' }, applies: 'when_named' },
    });
    expect(promptSkill.status, JSON.stringify(promptSkill.body)).toBe(201);
    expect(promptSkill.body.skill).toMatchObject({ kind: 'prompt', scope: 'account', prompt: { name: 'support_voice', version: 1, variables: { customer_name: 'Acme Corp' } } });

    // Named by the task: all three, each in its own delimited section of the system message.
    const withNamed = await runOnce(a, { title: 'Answer Acme', skills: ['travel-policy', 'support'] });
    expect(withNamed).toContain('<skill name="house-style" kind="instructions">\nAlways sign emails as Ada Lovelace.\n</skill>');
    expect(withNamed).toContain('<skill name="travel-policy" kind="instructions">\nBook economy class only.\n</skill>');
    expect(withNamed).toContain('You help Acme Corp with Steward. Be warm.');
    expect(withNamed).not.toContain('Version two text.');

    // Not named: only the skill that applies always.
    const plain = await runOnce(a, { title: 'Something else' });
    expect(plain).toContain('Always sign emails as Ada Lovelace.');
    expect(plain).not.toContain('Book economy class only.');
    expect(plain).not.toContain('Acme Corp');

    // Another user of the account has none of a's own skills, and gets the account's when named; the latest version by default.
    await call(app(), `/skills/${promptSkill.body.skill.id}`, { key: acct.key, method: 'PATCH', body: { promptVersion: null } });
    const other = await runOnce(b, { title: 'Help Acme', skills: ['support'] });
    expect(other).not.toContain('Always sign emails as Ada Lovelace.');
    expect(other).toContain('Version two text.');

    // A disabled skill applies nowhere.
    await call(app(), `/skills/${always.body.skill.id}`, { key: a.key, method: 'PATCH', body: { enabled: false } });
    expect(await runOnce(a, { title: 'Once more' })).not.toContain('Always sign emails');
  });

  it('refuses what they need missing, naming the field', async () => {
    const acct = await newAccount(app());
    const a = await person(acct);
    const noText = await call(app(), '/skills', { key: a.key, body: { kind: 'instructions', name: 'empty' } });
    expect(noText.status).toBe(400);
    expect(noText.body.error).toContain('instructions');
    const badApplies = await call(app(), '/skills', { key: a.key, body: { kind: 'instructions', name: 'x', instructions: 'y', applies: 'sometimes' } });
    expect(badApplies.status).toBe(400);
    expect(badApplies.body.error).toContain('applies');
    const noPrompt = await call(app(), '/skills', { key: a.key, body: { kind: 'prompt', name: 'p', promptName: 'does_not_exist' } });
    expect(noPrompt.status).toBe(400);
    expect(noPrompt.body.error).toContain('promptName');
    const badKind = await call(app(), '/skills', { key: a.key, body: { kind: 'plugin', name: 'p' } });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error).toContain('kind');
  });
});
