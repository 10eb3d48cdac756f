import { expect, it } from 'vitest';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

type Responses = Record<string, { content?: Record<string, unknown>; $ref?: string }>;

/** The notice link's page is HTML for a person: the document must say so for 200 and 410 (issue 46). */
it('documents GET and POST /notices/open as text/html for 200 and 410, as they answer', async () => {
  const doc = await (await fetch(`${app().baseUrl}/openapi.json`)).json();
  for (const method of ['get', 'post']) {
    const responses: Responses = doc.paths['/notices/open'][method].responses;
    for (const status of ['200', '410']) {
      expect(Object.keys(responses[status].content ?? {}), `${method} ${status}`).toEqual(['text/html']);
    }
  }
  // What is served agrees with what is documented.
  const bogus = 'x'.repeat(40);
  const got = await fetch(`${app().baseUrl}/notices/open?token=${bogus}`);
  expect(got.status).toBe(410);
  expect(got.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await got.text()).toContain('no longer works');
  const posted = await fetch(`${app().baseUrl}/notices/open`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${bogus}`, redirect: 'manual' });
  expect(posted.status).toBe(410);
  expect(posted.headers.get('content-type')).toMatch(/^text\/html/);
  // The spent link's redirect is documented as one, without a body.
  expect(doc.paths['/notices/open'].post.responses['303'].content).toBeUndefined();
});
