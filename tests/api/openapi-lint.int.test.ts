import { createConfig, lintFromString } from '@redocly/openapi-core';
import { expect, it } from 'vitest';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

it('the served OpenAPI document passes Redocly’s recommended rules without an error or a warning', async () => {
  const res = await fetch(`${app().baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  const source = await res.text();
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  const found = problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`);
  expect(found).toEqual([]);
});
