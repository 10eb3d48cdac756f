import { expect, it } from 'vitest';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

it('serves the OpenAPI 3.1 document without a credential', async () => {
  const res = await fetch(`${app().baseUrl}/openapi.json`);
  expect(res.status).toBe(200);
  const doc = await res.json();
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/me'].get.responses['200']).toBeDefined();
  expect(doc.paths['/api-keys'].post.requestBody.content['application/json'].schema.properties.label).toBeDefined();
});
