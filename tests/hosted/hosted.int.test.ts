import { expect, it } from 'vitest';
import { createAccount } from '@/server/accounts/service';
import { accountForHost, setHostedDomain } from '@/server/hosted/accounts';
import { spCredentials } from '@/server/hosted/sp-credentials';
import { admin } from '../helpers/admin-cli';
import { hosted } from '../helpers/hosted';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

const getWithHost = async (url: string, host: string) => {
  const res = await hosted(url, { host });
  return { status: res.status, type: String(res.headers['content-type']), body: res.body };
};

it('selects the account by hosted domain (or the only account) and serves SP metadata for it', async () => {
  const db = app().database.db;
  const first = await createAccount(db, 'First');
  expect((await accountForHost(db, 'anything.example'))?.id).toBe(first.accountId);
  const second = await createAccount(db, 'Second');
  expect(await accountForHost(db, 'anything.example')).toBeNull();
  await setHostedDomain(db, second.accountId, 'App.Second.Example');
  expect((await accountForHost(db, 'app.second.example'))?.id).toBe(second.accountId);
  // The host with a port is its domain; a host nobody named, with two accounts, is nobody's; no host at all either.
  expect((await accountForHost(db, 'APP.second.example:8443'))?.id).toBe(second.accountId);
  expect(await accountForHost(db, 'first.example')).toBeNull();
  expect(await accountForHost(db, null)).toBeNull();
  await expect(setHostedDomain(db, first.accountId, 'app.second.example')).rejects.toThrow(/another account/);

  const res = await getWithHost(`${app().baseUrl}/sso/saml/metadata`, 'app.second.example');
  expect(res.status).toBe(200);
  expect(res.type).toContain('samlmetadata+xml');
  expect(res.body).toContain('entityID="https://app.second.example/api/sso/saml/metadata"');
  expect(res.body).toContain('Location="https://app.second.example/api/sso/saml/acs"');
  expect(res.body).toContain('https://app.second.example/api/sso/saml/slo');
  expect(res.body).toContain('AuthnRequestsSigned="true"');
  const published = /<(?:ds:)?X509Certificate>([^<]+)</.exec(res.body)?.[1];
  const { cert } = await spCredentials(db);
  expect(published?.replace(/\s/g, '')).toBe(cert.replace(/-----[A-Z ]+-----|\s/g, ''));
  expect((await getWithHost(`${app().baseUrl}/sso/saml/metadata`, 'unknown.example')).status).toBe(404);

  const cli = await admin(app().database.pool.options.connectionString as string, 'set-hosted-domain', '--account', first.accountId, '--domain', 'first.example');
  expect(cli.out).toEqual({ accountId: first.accountId, hostedDomain: 'first.example' });
});
