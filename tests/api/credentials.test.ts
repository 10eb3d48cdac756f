import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { Actor, UserActor } from '@/server/access/actor';
import { apiKeyCredential } from '@/server/access/credentials/api-key';
import { certificateCredential } from '@/server/access/credentials/certificate';
import { credentials } from '@/server/credentials';
import { defineEndpoint } from '@/server/http/endpoint';
import { serviceKeyCredential } from '@/server/prompts/credential';
import type { TenantCaller } from '@/server/prompts/service-keys';
import { scimTokenCredential } from '@/server/scim/credential';
import type { ScimCaller } from '@/server/scim/token';

const headers = (authorization?: string) => new Headers(authorization === undefined ? {} : { authorization });

describe('the credential registry', () => {
  it('recognises each kind by its shape, prefixed kinds before the certificate token', () => {
    const kindOf = (h: string) => credentials.presented(headers(h)).kind;
    expect(kindOf(`Bearer ak_live_${'a'.repeat(64)}`)).toBe(apiKeyCredential);
    expect(kindOf(`Bearer sk_live_${'b'.repeat(48)}`)).toBe(serviceKeyCredential);
    expect(kindOf(`bearer scim_${'c'.repeat(64)}`)).toBe(scimTokenCredential);
    expect(kindOf('Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig')).toBe(certificateCredential);
    // A service key with dots is still a service key: it is told where service keys work.
    expect(kindOf('Bearer sk_live_x.y.z')).toBe(serviceKeyCredential);
    expect(kindOf('Bearer something-else')).toBeNull();
  });

  it('separates a missing header, a malformed one and a bearer token', () => {
    expect(credentials.presented(headers())).toEqual({ header: null, token: null, kind: null });
    expect(credentials.presented(headers('Basic abc'))).toMatchObject({ header: 'Basic abc', token: null });
    expect(credentials.presented(headers('Bearer  tok  '))).toMatchObject({ token: 'tok' });
  });

  it('serves every level the endpoints use', () => {
    for (const level of ['any', 'user', 'account', 'service', 'scim'] as const) expect(credentials.level(level)?.level).toBe(level);
  });
});

describe('handler contexts are typed by the endpoint’s auth level', () => {
  const base = { method: 'GET' as const, path: '/typed', summary: 'types', tags: ['Probe'], response: z.unknown() };

  it('each level hands its handler its own caller, and nothing else', () => {
    defineEndpoint({
      ...base,
      auth: 'user',
      handle: async (ctx) => {
        expectTypeOf(ctx.actor).toEqualTypeOf<UserActor>();
        expectTypeOf(ctx.actor.user.id).toBeString();
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        return null;
      },
    });
    defineEndpoint({ ...base, auth: 'any', handle: async ({ actor }) => (expectTypeOf(actor).toEqualTypeOf<Actor>(), null) });
    defineEndpoint({ ...base, auth: 'service', handle: async ({ tenant }) => (expectTypeOf(tenant).toEqualTypeOf<TenantCaller>(), null) });
    defineEndpoint({ ...base, auth: 'scim', handle: async ({ scim }) => (expectTypeOf(scim).toEqualTypeOf<ScimCaller>(), null) });
    // @ts-expect-error an endpoint without a credential has no actor
    defineEndpoint({ ...base, auth: 'none', handle: async ({ actor }) => actor });
    // @ts-expect-error a SCIM endpoint has no actor
    defineEndpoint({ ...base, auth: 'scim', handle: async ({ actor }) => actor });
    // @ts-expect-error a tenant endpoint has no SCIM caller
    defineEndpoint({ ...base, auth: 'service', handle: async ({ scim }) => scim });
  });
});
