import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { organizations } from '@/db/schema';
import { proxy } from '@/proxy';
import { call, newAccount, newUser } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();
const certificate = readFileSync(path.join(import.meta.dirname, '../fixtures/idp-cert.pem'), 'utf8');
const der = certificate.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

const metadata = (location: string) =>
  `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="urn:idp"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${location}"/></md:IDPSSODescriptor></md:EntityDescriptor>`;

async function orgWithAdmin() {
  const acct = await newAccount(app());
  const org = (await call(app(), '/organizations', { key: acct.key, body: { name: 'Url Co' } })).body.organization;
  const admin = await newUser(app(), acct);
  await call(app(), `/users/${admin.id}`, { key: acct.key, method: 'PUT', body: { organization: org.id, organizationRole: 'admin' } });
  return { acct, org, admin, put: (body: unknown) => call(app(), `/organizations/${org.id}/sso`, { key: acct.key, as: admin.email, method: 'PUT', body }) };
}

const fieldsOf = (body: { fields?: Array<{ field: string }> }) => (body.fields ?? []).map((f) => f.field);

describe('URLs a browser will follow', () => {
  it('SSO entryPoint and logoutUrl: https only (http on loopback), no script, data, credentials or ambiguous characters', async () => {
    const { org, acct, put } = await orgWithAdmin();
    for (const bad of [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'http://idp.example/sso',
      'https://user:secret@idp.example/sso',
      'https://idp.example/\tsso',
      'https:\\\\evil.example/sso',
      'vbscript:msgbox(1)',
      '//idp.example/sso',
    ]) {
      const res = await put({ saml: { entryPoint: bad, logoutUrl: bad, certificate } });
      expect(res.status, bad).toBe(400);
      expect(fieldsOf(res.body), bad).toEqual(['saml.entryPoint', 'saml.logoutUrl']);
    }
    const [row] = await app().database.db.select().from(organizations).where(eq(organizations.id, org.id));
    expect(row.sso).toBeNull();

    const ok = await put({ enabled: true, saml: { entryPoint: 'https://idp.example/sso?tenant=1', logoutUrl: 'http://127.0.0.1:8080/logout', certificate } });
    expect(ok.status).toBe(200);
    expect(ok.body.sso.saml).toMatchObject({ entryPoint: 'https://idp.example/sso?tenant=1', logoutUrl: 'http://127.0.0.1:8080/logout' });
    expect((await put({ saml: { entryPoint: 'http://localhost:9000/sso' } })).status).toBe(200);

    // The same rule for the location read from IdP metadata, through the account key too.
    const viaMetadata = await call(app(), `/organizations/${org.id}/sso`, { key: acct.key, method: 'PUT', body: { saml: { metadataXml: metadata('javascript:alert(1)') } } });
    expect(viaMetadata.status).toBe(400);
    expect(fieldsOf(viaMetadata.body)).toEqual(['saml.metadataXml']);
    const goodMetadata = await call(app(), `/organizations/${org.id}/sso`, { key: acct.key, method: 'PUT', body: { saml: { metadataXml: metadata('https://idp.example/redirect') } } });
    expect(goodMetadata.body.sso.saml.entryPoint).toBe('https://idp.example/redirect');
  });

  it('a javascript: entryPoint stored before the check is not carried forward by the next save', async () => {
    const { org, put } = await orgWithAdmin();
    expect((await put({ saml: { entryPoint: 'https://idp.example/sso', certificate } })).status).toBe(200);
    const [row] = await app().database.db.select().from(organizations).where(eq(organizations.id, org.id));
    const legacy = { ...(row.sso as Record<string, unknown>), saml: { ...((row.sso as { saml: object }).saml), entryPoint: 'javascript:alert(1)' } };
    await app().database.db.update(organizations).set({ sso: legacy }).where(eq(organizations.id, org.id));

    const enabling = await put({ enabled: true });
    expect(enabling.status).toBe(400);
    expect(fieldsOf(enabling.body)).toEqual(['saml.entryPoint']);
    expect((await put({ enabled: true, saml: { entryPoint: 'https://idp.example/sso' } })).status).toBe(200);
  });

  it('user avatars: https URLs only, through PATCH /profile and PUT /users/{userId}', async () => {
    const acct = await newAccount(app());
    const u = await newUser(app(), acct);
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,iVBORw0KGgo=', 'http://cdn.example/a.png', 'https://u:p@cdn.example/a.png']) {
      const profile = await call(app(), '/profile', { key: acct.key, as: u.email, method: 'PATCH', body: { avatar: bad } });
      expect(profile.status, bad).toBe(400);
      expect(fieldsOf(profile.body)).toEqual(['avatar']);
      const admin = await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: { avatar: bad } });
      expect(admin.status, bad).toBe(400);
      expect(fieldsOf(admin.body)).toEqual(['avatar']);
    }
    expect((await call(app(), `/users/${u.id}`, { key: acct.key })).body.user.avatarUrl).toBeNull();
    const ok = await call(app(), '/profile', { key: acct.key, as: u.email, method: 'PATCH', body: { avatar: 'https://cdn.example/a.png' } });
    expect(ok.status).toBe(200);
    expect((await call(app(), `/users/${u.id}`, { key: acct.key })).body.user.avatarUrl).toBe('https://cdn.example/a.png');
    expect((await call(app(), `/users/${u.id}`, { key: acct.key, method: 'PUT', body: { avatar: null } })).body.user.avatarUrl).toBeNull();
  });
});

describe('pages carry a script-src Content-Security-Policy', () => {
  it('every page response gets a fresh nonce, given to Next.js on the request and to the browser on the response', () => {
    const first = proxy(new NextRequest('https://app.example/sign-in'));
    const second = proxy(new NextRequest('https://app.example/organizations/x'));
    const policy = first.headers.get('content-security-policy')!;
    expect(policy).toMatch(/(^|; )script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'(;|$)/);
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
    // Next.js reads the nonce from the forwarded request headers to put it on its scripts.
    expect(first.headers.get('x-middleware-request-content-security-policy')).toBe(policy);
    const nonce = (p: string | null) => /'nonce-([^']+)'/.exec(p ?? '')?.[1];
    expect(nonce(second.headers.get('content-security-policy'))).not.toBe(nonce(policy));
  });
});
