import { expect, it } from 'vitest';
import { call, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';
import { samlOrganization } from '../sign-in/saml-setup';

const app = useTestServer();

/** Issue 46: `firstLoginAt` (spec 1, User) is written at the first hosted-app sign-in and never moves. */
it('firstLoginAt is null until the first sign-in to the hosted app, then stays at that first time', async () => {
  const s = await samlOrganization(app(), { saml: { allowIdpInitiated: true } });
  const email = `first@${s.domain}`;
  const provisioned = await newUser(app(), s.acct, { email });
  const read = async () => (await call(app(), `/users/${provisioned.id}`, { key: s.acct.key })).body.user.firstLoginAt as string | null;
  expect(await read()).toBeNull();

  const before = Date.now();
  const first = await s.post(s.response({ email }));
  expect(first.status).toBe(303);
  const at = await read();
  expect(at).not.toBeNull();
  expect(Date.parse(at!)).toBeGreaterThanOrEqual(before - 1000);

  await new Promise((r) => setTimeout(r, 20));
  expect((await s.post(s.response({ email }))).status).toBe(303);
  expect(await read()).toBe(at);
});
