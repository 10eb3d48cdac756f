import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { organizations } from '@/db/schema';
import { ModelNotConfiguredError } from '@/server/models/errors';
import { languageModel } from '@/server/models/language-model';
import { modelConfigurationProblems } from '@/server/models/check';
import { creditsFor, ModelPricesError, modelPrices } from '@/server/models/prices';
import { runTier } from '@/server/models/run-tier';
import { setAccountModel } from '@/server/models/settings';
import { resolveTier } from '@/server/models/tiers';
import { stewardUsage } from '@/server/models/usage';
import { createAccount } from '@/server/accounts/service';
import { AppError } from '@/server/http/errors';
import { admin } from '../helpers/admin-cli';
import { createTestDatabase } from '../helpers/database';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';

const VARIABLES = [
  'STEWARD_MODEL_BASE_URL',
  'STEWARD_MODEL_API_KEY',
  'STEWARD_MODEL_LOW',
  'STEWARD_MODEL_MEDIUM',
  'STEWARD_MODEL_HIGH',
  'STEWARD_MODEL_ULTRA',
  'STEWARD_MODEL_PRICES',
] as const;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let llm: ScriptedModel;
/** A second endpoint, standing for an account's own server. */
let own: ScriptedModel;
let saved: Record<string, string | undefined>;
const db = () => database.database.db;

/** Only the given model variables are set for the test (the rest unset); afterEach restores the process's own. */
function modelEnv(values: Partial<Record<(typeof VARIABLES)[number], string>>) {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, values);
}

beforeAll(async () => {
  [database, llm, own] = await Promise.all([createTestDatabase(), startScriptedModel(), startScriptedModel()]);
});
afterAll(async () => {
  await Promise.all([database?.drop(), llm?.close(), own?.close()]);
});
beforeEach(() => {
  saved = Object.fromEntries(VARIABLES.map((n) => [n, process.env[n]]));
  llm.reset();
  own.reset();
});
afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const newAccount = async (name = 'Models') => (await createAccount(db(), name)).accountId;

const weatherTool = (calls: unknown[]) =>
  tool({
    description: 'The forecast for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push({ city });
      return { city, forecast: 'sunny' };
    },
  });

describe('tier resolution', () => {
  it('takes the task’s own tier, then the organization default, then the account default, then medium', () => {
    expect(resolveTier({ taskTier: 'low', organizationTier: 'high', accountTier: 'ultra' })).toBe('low');
    expect(resolveTier({ taskTier: null, organizationTier: 'high', accountTier: 'ultra' })).toBe('high');
    expect(resolveTier({ organizationTier: null, accountTier: 'ultra' })).toBe('ultra');
    expect(resolveTier({})).toBe('medium');
  });

  it('reads the organization’s default for the kind of run, and never another account’s organization', async () => {
    const mine = await newAccount();
    const other = await newAccount('Other');
    const [org] = await db().insert(organizations).values({ accountId: mine, name: 'Org', taskModelTier: 'high' }).returning();
    const [foreign] = await db().insert(organizations).values({ accountId: other, name: 'Foreign', taskModelTier: 'ultra' }).returning();
    expect(await runTier(db(), { accountId: mine, organizationId: org.id, kind: 'task' })).toBe('high');
    expect(await runTier(db(), { accountId: mine, organizationId: org.id, kind: 'chat' })).toBe('medium');
    expect(await runTier(db(), { accountId: mine, organizationId: org.id, kind: 'task', own: 'low' })).toBe('low');
    expect(await runTier(db(), { accountId: mine, organizationId: null, kind: 'task' })).toBe('medium');
    expect(await runTier(db(), { accountId: mine, organizationId: foreign.id, kind: 'task' })).toBe('medium');
  });
});

describe('which model serves a tier', () => {
  it('sends exactly the tier’s configured model id, with the deployment key, streaming and not', async () => {
    const account = await newAccount();
    modelEnv({ STEWARD_MODEL_BASE_URL: `${llm.baseUrl}/`, STEWARD_MODEL_API_KEY: 'deployment-key', STEWARD_MODEL_MEDIUM: 'acme/medium-1', STEWARD_MODEL_HIGH: 'acme/high-2' });
    llm.enqueue({ text: 'plain' }, { text: 'streamed answer' });

    const medium = await languageModel(db(), account, 'medium');
    expect(medium).toMatchObject({ modelId: 'acme/medium-1', tier: 'medium', servedBy: 'medium', baseUrl: llm.baseUrl, billable: true });
    const plain = await generateText({ model: medium.model, prompt: 'line one\nline two', maxRetries: 0 });
    expect(plain.text).toBe('plain');

    const high = await languageModel(db(), account, 'high');
    const streamed = streamText({ model: high.model, prompt: 'hi', maxRetries: 0 });
    expect(await streamed.text).toBe('streamed answer');

    expect(llm.requests.map((r) => [r.path, r.model, r.stream])).toEqual([
      ['/v1/chat/completions', 'acme/medium-1', false],
      ['/v1/chat/completions', 'acme/high-2', true],
    ]);
    expect(llm.requests[0].messages).toEqual([{ role: 'user', content: 'line one\nline two' }]);
    expect(llm.requests[1].body.stream_options).toEqual({ include_usage: true });
    expect(llm.requests.map((r) => r.headers.authorization)).toEqual(['Bearer deployment-key', 'Bearer deployment-key']);
  });

  it('falls back to the nearest lower tier with a model, then the nearest higher one', async () => {
    const account = await newAccount();
    const served = async (tier: 'low' | 'medium' | 'high' | 'ultra') => {
      const m = await languageModel(db(), account, tier);
      return `${m.servedBy}:${m.modelId}`;
    };
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_LOW: 'm-low', STEWARD_MODEL_HIGH: 'm-high' });
    expect([await served('low'), await served('medium'), await served('high'), await served('ultra')]).toEqual([
      'low:m-low',
      'low:m-low',
      'high:m-high',
      'high:m-high',
    ]);

    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: 'm-medium', STEWARD_MODEL_ULTRA: 'm-ultra' });
    expect([await served('low'), await served('high')]).toEqual(['medium:m-medium', 'medium:m-medium']);

    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_ULTRA: 'm-ultra' });
    expect(await served('low')).toBe('ultra:m-ultra');

    // The fallback is what the endpoint sees, not only what the function reports.
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_LOW: 'm-low', STEWARD_MODEL_ULTRA: 'm-ultra' });
    llm.enqueue({ text: 'a' }, { text: 'b' });
    await generateText({ model: (await languageModel(db(), account, 'high')).model, prompt: 'x', maxRetries: 0 });
    await generateText({ model: (await languageModel(db(), account, 'ultra')).model, prompt: 'x', maxRetries: 0 });
    expect(llm.requests.map((r) => r.model)).toEqual(['m-low', 'm-ultra']);
  });

  it('an account’s setting wins over the environment for that account only, tier by tier', async () => {
    const mine = await newAccount();
    const other = await newAccount('Other');
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_API_KEY: 'deployment-key', STEWARD_MODEL_LOW: 'env-low', STEWARD_MODEL_MEDIUM: 'env-medium' });
    await setAccountModel(db(), mine, 'medium', 'acct-medium');
    await setAccountModel(db(), mine, 'ultra', 'acct-ultra', own.baseUrl, 'account-key');

    expect((await languageModel(db(), mine, 'medium')).modelId).toBe('acct-medium');
    expect((await languageModel(db(), mine, 'low')).modelId).toBe('env-low');
    expect((await languageModel(db(), other, 'medium')).modelId).toBe('env-medium');
    // high has no model: lower first, so the account's medium rather than its ultra.
    expect((await languageModel(db(), mine, 'high')).modelId).toBe('acct-medium');

    llm.enqueue({ text: 'mine' }, { text: 'other' });
    own.enqueue({ text: 'own endpoint' });
    await generateText({ model: (await languageModel(db(), mine, 'medium')).model, prompt: 'x', maxRetries: 0 });
    await generateText({ model: (await languageModel(db(), other, 'medium')).model, prompt: 'x', maxRetries: 0 });
    const ultra = await languageModel(db(), mine, 'ultra');
    expect(ultra).toMatchObject({ modelId: 'acct-ultra', baseUrl: own.baseUrl, billable: false });
    expect((await generateText({ model: ultra.model, prompt: 'x', maxRetries: 0 })).text).toBe('own endpoint');

    expect(llm.requests.map((r) => [r.model, r.headers.authorization])).toEqual([
      ['acct-medium', 'Bearer deployment-key'],
      ['env-medium', 'Bearer deployment-key'],
    ]);
    // The account's endpoint gets the account's key, never the deployment's.
    expect(own.requests.map((r) => [r.model, r.headers.authorization])).toEqual([['acct-ultra', 'Bearer account-key']]);

    await setAccountModel(db(), mine, 'medium', 'default');
    expect((await languageModel(db(), mine, 'medium')).modelId).toBe('env-medium');
  });

  it('an account endpoint without a key sends no Authorization at all', async () => {
    const account = await newAccount();
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_API_KEY: 'deployment-key' });
    await setAccountModel(db(), account, 'medium', 'llama3.2', own.baseUrl);
    own.enqueue({ text: 'ok' });
    await generateText({ model: (await languageModel(db(), account, 'medium')).model, prompt: 'x', maxRetries: 0 });
    expect(own.requests[0].headers.authorization).toBeUndefined();
  });
});

describe('model not configured', () => {
  it('a sealed key copied into another account’s row does not open: model_not_configured, nothing sent', async () => {
    const mine = await newAccount();
    const thief = await newAccount('Thief');
    modelEnv({});
    await setAccountModel(db(), mine, 'medium', 'm', own.baseUrl, 'mine-only');
    await setAccountModel(db(), thief, 'medium', 'm', own.baseUrl);
    await database.database.pool.query(
      `UPDATE model_settings SET api_key_sealed = (SELECT api_key_sealed FROM model_settings WHERE account_id = $1 AND tier = 'medium') WHERE account_id = $2`,
      [mine, thief],
    );
    const error = await languageModel(db(), thief, 'medium').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_not_configured', message: expect.stringContaining('cannot be opened') });
    expect(own.requests).toHaveLength(0);
  });

  it('throws model_not_configured saying what to set, sends nothing, and works once a model is set', async () => {
    const account = await newAccount();
    modelEnv({});
    const error = await languageModel(db(), account, 'high').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelNotConfiguredError);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'model_not_configured', tier: 'high' });
    expect((error as Error).message).toContain('STEWARD_MODEL_BASE_URL');
    expect((error as Error).message).toContain('STEWARD_MODEL_HIGH');
    expect((error as Error).message).toContain(`set-model --account ${account} --tier high`);

    modelEnv({ STEWARD_MODEL_MEDIUM: 'm' });
    const noEndpoint = await languageModel(db(), account, 'high').catch((e: unknown) => e);
    expect(noEndpoint).toMatchObject({ code: 'model_not_configured' });
    expect((noEndpoint as Error).message).toMatch(/model m, but no endpoint is set: set STEWARD_MODEL_BASE_URL/);

    modelEnv({ STEWARD_MODEL_MEDIUM: 'm', STEWARD_MODEL_BASE_URL: 'localhost:11434' });
    expect(((await languageModel(db(), account, 'high').catch((e: unknown) => e)) as Error).message).toContain('STEWARD_MODEL_BASE_URL must be');
    expect(llm.requests).toHaveLength(0);

    modelEnv({ STEWARD_MODEL_MEDIUM: 'm', STEWARD_MODEL_BASE_URL: llm.baseUrl });
    llm.enqueue({ text: 'now it works' });
    expect((await generateText({ model: (await languageModel(db(), account, 'high')).model, prompt: 'x', maxRetries: 0 })).text).toBe('now it works');
  });
});

describe('tool calling through the real provider', () => {
  for (const mode of ['generateText', 'streamText'] as const) {
    it(`runs a two-step tool loop with ${mode}: the tool runs once and its result goes back to the model`, async () => {
      const account = await newAccount();
      modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: 'tools-model' });
      llm.enqueue({ toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' }, id: 'call_w1' }] }, { text: 'Sunny in Oslo.' });
      const calls: unknown[] = [];
      const { model } = await languageModel(db(), account, 'medium');
      const options = { model, tools: { weather: weatherTool(calls) }, stopWhen: stepCountIs(5), prompt: 'Weather in Oslo?', maxRetries: 0 };
      let text: string;
      let steps: number;
      if (mode === 'generateText') {
        const result = await generateText(options);
        [text, steps] = [result.text, result.steps.length];
      } else {
        const result = streamText(options);
        [text, steps] = [await result.text, (await result.steps).length];
      }

      expect(text).toBe('Sunny in Oslo.');
      expect(steps).toBe(2);
      expect(calls).toEqual([{ city: 'Oslo' }]);
      expect(llm.requests.map((r) => [r.model, r.stream])).toEqual([
        ['tools-model', mode === 'streamText'],
        ['tools-model', mode === 'streamText'],
      ]);
      expect(llm.requests[0].tools).toEqual([
        expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'weather', description: 'The forecast for a city' }) }),
      ]);
      expect(llm.requests[0].tools![0].function.parameters.properties).toEqual({ city: { type: 'string' } });
      const [, assistant, toolMessage] = llm.requests[1].messages;
      expect(assistant).toMatchObject({
        role: 'assistant',
        tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
      });
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_w1' });
      expect(JSON.parse(toolMessage.content)).toEqual({ city: 'Oslo', forecast: 'sunny' });
    });
  }

  it('an HTTP error from the endpoint reaches the caller with its status; a retry gets the next reply', async () => {
    const account = await newAccount();
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: 'flaky' });
    const { model } = await languageModel(db(), account, 'medium');
    llm.enqueue({ error: { status: 400, message: 'context too long' } });
    const failed = await generateText({ model, prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(failed)).toBe(true);
    expect(failed).toMatchObject({ statusCode: 400, message: 'context too long' });

    llm.enqueue({ error: { status: 503 }, delayMs: 20 }, { text: 'second try' });
    expect((await generateText({ model, prompt: 'x', maxRetries: 1 })).text).toBe('second try');
    expect(llm.requests).toHaveLength(3);
  });
});

describe('usage and credits', () => {
  const twoSteps = () =>
    llm.enqueue(
      { toolCalls: [{ name: 'weather', arguments: { city: 'Bergen' } }], usage: { promptTokens: 100, completionTokens: 20, cachedTokens: 40 } },
      // A provider that reports cache writes (OpenRouter's field): 30 written, 100 read, 20 uncached.
      { text: 'Rain.', usage: { promptTokens: 150, completionTokens: 7, extra: { prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 30 } } } },
    );

  for (const mode of ['generateText', 'streamText'] as const) {
    it(`maps the provider’s usage per step and in total, cached tokens included (${mode})`, async () => {
      const account = await newAccount();
      modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: 'usage-model' });
      twoSteps();
      const { model } = await languageModel(db(), account, 'medium');
      const options = { model, tools: { weather: weatherTool([]) }, stopWhen: stepCountIs(5), prompt: 'Weather?', maxRetries: 0 };
      const result = mode === 'generateText' ? await generateText(options) : streamText(options);
      const steps = await result.steps;
      expect(steps.map((s) => stewardUsage(s.usage))).toEqual([
        { inputTokens: 60, outputTokens: 20, cacheReadTokens: 40, cacheCreationTokens: 0 },
        { inputTokens: 20, outputTokens: 7, cacheReadTokens: 100, cacheCreationTokens: 30 },
      ]);
      expect(stewardUsage(await result.totalUsage)).toEqual({ inputTokens: 80, outputTokens: 27, cacheReadTokens: 140, cacheCreationTokens: 30 });
    });
  }

  it('prices the serving tier from STEWARD_MODEL_PRICES (inline or a file); an account’s own endpoint is not billable', async () => {
    const account = await newAccount();
    const prices = { low: { input: 1, output: 2 }, medium: { input: 3, output: 15, cacheRead: 0.3 } };
    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_LOW: 'cheap', STEWARD_MODEL_MEDIUM: 'usage-model', STEWARD_MODEL_PRICES: JSON.stringify(prices) });
    twoSteps();
    const m = await languageModel(db(), account, 'medium');
    const result = await generateText({ model: m.model, tools: { weather: weatherTool([]) }, stopWhen: stepCountIs(5), prompt: 'x', maxRetries: 0 });
    const usage = stewardUsage(result.totalUsage);
    // 80 × 3 + 27 × 15 + 140 × 0.3 + 30 × 3 (cache writes cost input when unpriced) = 777 per million.
    expect(creditsFor(m.servedBy, usage, { billable: m.billable })).toEqual({ chargedCredits: 0.000777, isBillable: true });
    expect(creditsFor('low', usage, { billable: true })).toEqual({ chargedCredits: (80 * 1 + 27 * 2 + 140 * 1 + 30 * 1) / 1e6, isBillable: true });
    expect(creditsFor('high', usage, { billable: true })).toEqual({ chargedCredits: 0, isBillable: false });

    await setAccountModel(db(), account, 'medium', 'own-model', own.baseUrl);
    const ownModel = await languageModel(db(), account, 'medium');
    expect(creditsFor(ownModel.servedBy, usage, { billable: ownModel.billable })).toEqual({ chargedCredits: 0, isBillable: false });

    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'prices-')), 'prices.json');
    writeFileSync(file, JSON.stringify({ high: { input: 10, output: 10, cacheRead: 1, cacheCreation: 12 } }));
    process.env.STEWARD_MODEL_PRICES = file;
    expect(creditsFor('high', usage, { billable: true })).toEqual({ chargedCredits: (80 * 10 + 27 * 10 + 140 * 1 + 30 * 12) / 1e6, isBillable: true });
    expect(creditsFor('medium', usage, { billable: true }).isBillable).toBe(false);

    delete process.env.STEWARD_MODEL_PRICES;
    expect(creditsFor('medium', usage, { billable: true })).toEqual({ chargedCredits: 0, isBillable: false });
  });

  it('refuses a price table it cannot read, naming the problem', () => {
    const bad = (value: string) => {
      try {
        modelPrices({ STEWARD_MODEL_PRICES: value });
        return 'accepted';
      } catch (e) {
        expect(e).toBeInstanceOf(ModelPricesError);
        return (e as Error).message;
      }
    };
    expect(bad('{"medium": {"input": 1}}')).toMatch(/medium\.output/);
    expect(bad('{"medium": {"input": -1, "output": 1}}')).toMatch(/medium\.input/);
    expect(bad('{"huge": {"input": 1, "output": 1}}')).toMatch(/huge/);
    expect(bad('{not json')).toMatch(/not JSON/);
    expect(bad('/nonexistent/prices.json')).toMatch(/cannot read \/nonexistent\/prices\.json/);
  });

  it('lists configuration mistakes for the startup log', () => {
    expect(modelConfigurationProblems({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_MEDIUM: 'm', STEWARD_MODEL_PRICES: '{"low":{"input":1,"output":1}}' })).toEqual([]);
    expect(modelConfigurationProblems({})).toEqual([]);
    expect(modelConfigurationProblems({ STEWARD_MODEL_BASE_URL: 'http://user:pw@host/v1', STEWARD_MODEL_PRICES: '{"low":{}}' })).toEqual([
      'STEWARD_MODEL_BASE_URL must not carry credentials; give the key separately',
      expect.stringMatching(/^STEWARD_MODEL_PRICES: low\.input/),
    ]);
    expect(modelConfigurationProblems({ STEWARD_MODEL_HIGH: 'h' })).toEqual([expect.stringContaining('STEWARD_MODEL_BASE_URL is not set')]);
  });
});

describe('admin CLI set-model', () => {
  it('sets, replaces and removes an account’s model, keeps the key sealed, and names bad fields', { timeout: 120_000 }, async () => {
    const account = await newAccount('CLI');
    const secret = 'sk-account-secret-4f1c9e';
    const set = await admin(database.url, 'set-model', '--account', account, '--tier', 'high', '--model', 'acct/high', '--base-url', `${own.baseUrl}/`, '--api-key', secret);
    expect(set.code).toBe(0);
    expect(set.stdout.trim().split('\n')).toHaveLength(1);
    expect(set.out).toEqual({ accountId: account, tier: 'high', model: 'acct/high', baseUrl: own.baseUrl, hasApiKey: true });
    expect(set.stdout).not.toContain(secret);

    modelEnv({ STEWARD_MODEL_BASE_URL: llm.baseUrl, STEWARD_MODEL_API_KEY: 'deployment-key', STEWARD_MODEL_HIGH: 'env-high' });
    own.enqueue({ text: 'from the account endpoint' });
    const high = await languageModel(db(), account, 'high');
    expect((await generateText({ model: high.model, prompt: 'x', maxRetries: 0 })).text).toBe('from the account endpoint');
    expect(own.requests.map((r) => [r.model, r.headers.authorization])).toEqual([['acct/high', `Bearer ${secret}`]]);

    // A dump of every table holds no trace of the key.
    const { rows: tables } = await database.database.pool.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    for (const { tablename } of tables) {
      const { rows } = await database.database.pool.query(`SELECT t::text AS row FROM "${tablename}" t`);
      expect(rows.filter((r) => r.row.includes(secret) || r.row.includes(Buffer.from(secret).toString('base64')))).toEqual([]);
    }

    // Setting the tier again replaces the whole setting: the old key goes with it.
    expect(await setAccountModel(db(), account, 'high', 'acct/high-2', own.baseUrl)).toMatchObject({ model: 'acct/high-2', hasApiKey: false });
    own.enqueue({ text: 'again' });
    await generateText({ model: (await languageModel(db(), account, 'high')).model, prompt: 'x', maxRetries: 0 });
    expect([own.requests[1].model, own.requests[1].headers.authorization]).toEqual(['acct/high-2', undefined]);

    const bad = await admin(database.url, 'set-model', '--account', account, '--tier', 'huge', '--model', 'x', '--api-key', 'k', '--base-url', 'ftp://host');
    expect(bad.code).toBe(1);
    expect(bad.out).toMatchObject({ ok: false, status: 400, error_code: 'bad_request' });
    expect(bad.out.error).toContain('--tier: must be one of low, medium, high, ultra');
    expect(bad.out.error).toContain('--base-url: must be an http or https URL');
    expect((await admin(database.url, 'set-model', '--account', account, '--tier', 'low', '--model', 'x', '--api-key', 'k')).out.error).toContain('--api-key: needs --base-url');
    expect((await admin(database.url, 'set-model', '--account', 'nope', '--tier', 'low', '--model', 'x')).out).toMatchObject({ ok: false, status: 404 });

    const removed = await admin(database.url, 'set-model', '--account', account, '--tier', 'high', '--model', 'default');
    expect(removed.out).toEqual({ accountId: account, tier: 'high', model: null, baseUrl: null, hasApiKey: false });
    expect((await languageModel(db(), account, 'high')).modelId).toBe('env-high');
  });
});
