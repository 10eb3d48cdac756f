import { describe, expect, it } from 'vitest';
import { CreatePromptResponse, ListPromptsResponse, PromptEnvelope, VersionEnvelope } from '@/server/prompts/contracts';
import { useTestServer } from '../helpers/server';
import { newTenant, samplePrompt, tcall } from './helpers';

const app = useTestServer();

describe('prompts', () => {
  it('creates a draft with an etag and no published version; names each missing field', async () => {
    const t = await newTenant(app());
    const res = await tcall(app(), t, '/prompts', { body: samplePrompt('support_agent') });
    expect(res.status).toBe(200);
    const { data } = CreatePromptResponse.parse(res.body);
    expect(data).toMatchObject({ tenantId: t.tenantId, promptName: 'support_agent', category: 'support', enabled: true });
    expect(data.etag).toMatch(/^v1_[0-9a-f]+$/);
    const got = PromptEnvelope.parse((await tcall(app(), t, '/prompts/support_agent')).body).data;
    expect(got).toMatchObject({ publishedVersion: null, publishedEtag: null, hasUnpublishedChanges: true, multiStep: false });

    const missing = await tcall(app(), t, '/prompts', { body: { promptName: 'x_y' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('category');
    expect(missing.body.error).toContain('description');
    const badName = await tcall(app(), t, '/prompts', { body: { ...samplePrompt('Bad-Name'), promptName: 'Bad-Name' } });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toContain('promptName');
    const dup = await tcall(app(), t, '/prompts', { body: samplePrompt('support_agent') });
    expect(dup.status).toBe(409);
  });

  it('assigns ids, orders chunks and renders the system prompt with blocks and variables', async () => {
    const t = await newTenant(app());
    await tcall(app(), t, '/blocks', { body: { blockName: 'tone_guide', content: 'Stay {{block:politeness}} and calm.', description: 'Tone' } });
    await tcall(app(), t, '/blocks', { body: { blockName: 'politeness', content: 'polite', description: 'Nested' } });
    await tcall(app(), t, '/prompts', { body: samplePrompt('renderer') });
    const { data } = PromptEnvelope.parse((await tcall(app(), t, '/prompts/renderer')).body);
    expect(data.systemChunks.map((c) => c.order)).toEqual([1, 2]);
    for (const list of [data.systemChunks, data.userChunks, data.toolDefs, data.variables, data.models]) {
      for (const item of list) expect(item.id).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(data.blocks).toEqual(['tone_guide']);
    expect(data.renderedSystemPrompt).toBe('You help {{customer_name}} with Steward.\n\nBe brief. Stay polite and calm.');
  });

  it('PATCH makes a new draft; If-Match refuses a stale etag with 412 and changes nothing', async () => {
    const t = await newTenant(app());
    const created = await tcall(app(), t, '/prompts', { body: samplePrompt('editing') });
    const etag1 = created.body.data.etag;
    const before = (await tcall(app(), t, '/prompts/editing')).body.data;
    const patched = await tcall(app(), t, '/prompts/editing', {
      method: 'PATCH',
      headers: { 'If-Match': `"${etag1}"` },
      body: { description: 'Updated', systemChunks: [{ id: before.systemChunks[0].id, content: 'kept id' }, { id: 'client-made', content: 'new' }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ promptName: 'editing', hasUnpublishedChanges: true });
    expect(patched.body.data.etag).toMatch(/^v2_/);
    const after = (await tcall(app(), t, '/prompts/editing')).body.data;
    expect(after.systemChunks[0].id).toBe(before.systemChunks[0].id);
    expect(after.systemChunks[1].id).not.toBe('client-made');
    expect(after.description).toBe('Updated');

    const stale = await tcall(app(), t, '/prompts/editing', { method: 'PATCH', headers: { 'If-Match': etag1 }, body: { description: 'Lost update' } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error_code: 'precondition_failed', etag: patched.body.data.etag });
    expect((await tcall(app(), t, '/prompts/editing')).body.data.description).toBe('Updated');
    const blind = await tcall(app(), t, '/prompts/editing', { method: 'PATCH', body: { enabled: false } });
    expect(blind.status).toBe(200);
    expect((await tcall(app(), t, '/prompts/editing', { method: 'PATCH', body: { enabled: 'no' } })).status).toBe(400);
    expect((await tcall(app(), t, '/prompts/nope', { method: 'PATCH', body: { enabled: false } })).status).toBe(404);
  });

  it('publish: numbered versions, block snapshots, newest first; an unchanged draft publishes nothing new', async () => {
    const t = await newTenant(app());
    await tcall(app(), t, '/blocks', { body: { blockName: 'tone_guide', content: 'Original tone', description: 'Tone' } });
    await tcall(app(), t, '/prompts', { body: samplePrompt('pub') });
    const p1 = await tcall(app(), t, '/prompts/pub/publish', { method: 'POST' });
    expect(p1.status).toBe(200);
    const draft = (await tcall(app(), t, '/prompts/pub')).body.data;
    expect(p1.body.data).toMatchObject({ publishedVersion: '1', publishedEtag: draft.etag, hasUnpublishedChanges: false });
    expect(draft).toMatchObject({ publishedVersion: '1', hasUnpublishedChanges: false });

    const again = await tcall(app(), t, '/prompts/pub/publish', { method: 'POST' });
    expect(again.body.data.publishedVersion).toBe('1');

    await tcall(app(), t, '/blocks/tone_guide', { method: 'PATCH', body: { content: 'New tone' } });
    await tcall(app(), t, '/prompts/pub', { method: 'PATCH', body: { description: 'v2' } });
    const p2 = await tcall(app(), t, '/prompts/pub/publish', { method: 'POST' });
    expect(p2.body.data.publishedVersion).toBe('2');

    const versions = await tcall(app(), t, '/prompts/pub/versions');
    expect(versions.body.data.map((v: { versionNumber: string }) => v.versionNumber)).toEqual(['2', '1']);
    expect(versions.body).toMatchObject({ page: 1, per_page: 20, has_more: false });
    const v1 = VersionEnvelope.parse((await tcall(app(), t, '/prompts/pub/versions/1')).body).data;
    expect(v1.blocks).toEqual([{ blockName: 'tone_guide', content: 'Original tone', description: 'Tone' }]);
    expect(v1.description).toBe('Answers support questions');
    const v2 = (await tcall(app(), t, '/prompts/pub/versions/2')).body.data;
    expect(v2.blocks[0].content).toBe('New tone');
    expect((await tcall(app(), t, '/prompts/pub/versions/3')).status).toBe(404);
    expect((await tcall(app(), t, '/prompts/pub/versions/latest')).status).toBe(400);
  });

  it('lists summaries newest first with page, per_page, has_more and the multiStep filter; delete removes', async () => {
    const t = await newTenant(app());
    for (const [i, name] of ['a_one', 'b_two', 'c_three'].entries()) {
      await tcall(app(), t, '/prompts', { body: { ...samplePrompt(name), multiStep: i === 1 } });
    }
    const page1 = ListPromptsResponse.parse((await tcall(app(), t, '/prompts?per_page=2')).body);
    expect(page1.data.map((p) => p.promptName)).toEqual(['c_three', 'b_two']);
    expect(page1).toMatchObject({ page: 1, per_page: 2, has_more: true });
    expect('systemChunks' in page1.data[0]).toBe(false);
    const page2 = (await tcall(app(), t, '/prompts?per_page=2&page=2')).body;
    expect(page2).toMatchObject({ has_more: false, data: [expect.objectContaining({ promptName: 'a_one' })] });
    expect((await tcall(app(), t, '/prompts?per_page=1000')).body.per_page).toBe(100);
    const multi = (await tcall(app(), t, '/prompts?multiStep=true')).body.data;
    expect(multi.map((p: { promptName: string }) => p.promptName)).toEqual(['b_two']);
    expect((await tcall(app(), t, '/prompts/b_two', { method: 'DELETE' })).body).toEqual({ message: expect.stringContaining('b_two') });
    expect((await tcall(app(), t, '/prompts/b_two')).status).toBe(404);
    expect((await tcall(app(), t, '/prompts/b_two', { method: 'DELETE' })).status).toBe(404);
  });
});
