import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMcpServer } from '@/server/workflows/mcp/probe';
import { AppError } from '@/server/http/errors';
import { startOauthMcpServer, startTestMcpServer, type TestMcpServer } from '../helpers/mcp-server';

let mcp: TestMcpServer;
let keyed: TestMcpServer;
const saved = process.env.STEWARD_MCP_ALLOWED_RANGES;

beforeAll(async () => {
  mcp = await startTestMcpServer();
  keyed = await startTestMcpServer({ apiKey: 'sk-test-123' });
});
afterAll(async () => {
  process.env.STEWARD_MCP_ALLOWED_RANGES = saved;
  await mcp.close();
  await keyed.close();
});

const allowLoopback = () => (process.env.STEWARD_MCP_ALLOWED_RANGES = '127.0.0.0/8');

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('probeMcpServer', () => {
  it('reads name, title, description and tools from initialize and tools/list (streamable HTTP)', async () => {
    allowLoopback();
    const info = await probeMcpServer({ url: mcp.url, transport: 'streamable-http', authType: 'none' });
    expect(info).toMatchObject({ name: 'weather-desk', title: 'Weather Desk', description: 'Forecasts and tickets for tests', version: '1.2.3' });
    expect(info.tools.map((t) => t.name).sort()).toEqual(['create_ticket', 'lookup_weather']);
    const read = info.tools.find((t) => t.name === 'lookup_weather')!;
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
    expect(read.inputSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
  });

  it('works over the SSE transport too', async () => {
    allowLoopback();
    const info = await probeMcpServer({ url: mcp.sseUrl, transport: 'sse', authType: 'none' });
    expect(info.name).toBe('weather-desk');
    expect(info.tools).toHaveLength(2);
  });

  it('sends the api key as a bearer token, and a missing key is a 400 naming the cause', async () => {
    allowLoopback();
    const info = await probeMcpServer({ url: keyed.url, transport: 'streamable-http', authType: 'api_key', apiKey: 'sk-test-123' });
    expect(info.tools).toHaveLength(2);
    expect(keyed.authorizations.at(-1)).toBe('Bearer sk-test-123');
    const e = await refusal(probeMcpServer({ url: keyed.url, transport: 'streamable-http', authType: 'api_key', apiKey: 'wrong' }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('mcp_unreachable');
    expect(e.message).toContain(keyed.url);
  });

  it('an unreachable server is 400 mcp_unreachable naming the URL', async () => {
    allowLoopback();
    const dead = await startTestMcpServer();
    const url = dead.url;
    await dead.close();
    const e = await refusal(probeMcpServer({ url, transport: 'streamable-http', authType: 'none' }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('mcp_unreachable');
    expect(e.message).toContain(url);
    expect(e.message).toMatch(/ECONNREFUSED|fetch failed|connect/i);
  });

  it('refuses loopback servers unless the operator allows the range', async () => {
    process.env.STEWARD_MCP_ALLOWED_RANGES = '';
    const e = await refusal(probeMcpServer({ url: mcp.url, transport: 'streamable-http', authType: 'none' }));
    expect(e.code).toBe('mcp_unreachable');
    expect(e.message).toMatch(/inside the deployment's network/);
    expect(mcp.calls).toHaveLength(0);
  });

  it('an oauth server not yet authorized is reachable and asks for authorization; a bare api key is not enough', async () => {
    allowLoopback();
    const oauth = await startOauthMcpServer();
    try {
      const info = await probeMcpServer({ url: oauth.url, transport: 'streamable-http', authType: 'oauth' });
      expect(info).toMatchObject({ authorizationRequired: true, tools: [] });
      const e = await refusal(probeMcpServer({ url: oauth.url, transport: 'streamable-http', authType: 'api_key', apiKey: 'nope' }));
      expect(e.code).toBe('mcp_unreachable');
      expect(oauth.calls).toHaveLength(0);
    } finally {
      await oauth.close();
    }
  });
});
