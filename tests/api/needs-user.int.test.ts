import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Actor } from '@/server/access/actor';
import { AppError } from '@/server/http/errors';
import { getContact } from '@/server/contacts/service';
import { getFile } from '@/server/files/service';
import { ListMemoriesQuery } from '@/server/memories/contracts';
import { listMemories } from '@/server/memories/service';
import { getProfile } from '@/server/users/profile';
import { call, newAccount } from '../helpers/client';
import { useTestServer } from '../helpers/server';

const app = useTestServer();

/**
 * "This call needs a user" has one answer whichever door a call comes through: the kernel
 * refuses a user-level endpoint with 401, and the services behind it (also reached by tRPC,
 * Inngest functions and endpoints of level `any`) refuse an actor without a user the same way.
 */
describe('a call that needs a user, made without one', () => {
  it('is 401 unauthorized with the same message in the kernel and in the memories, files, contacts and profile services', async () => {
    const acct = await newAccount(app());
    const kernel = await call(app(), '/memories', { key: acct.key });
    expect(kernel.status).toBe(401);
    expect(kernel.body.error_code).toBe('unauthorized');

    const accountWide: Actor = {
      accountId: acct.accountId,
      credential: { kind: 'api_key', keyId: randomUUID() },
      level: 'account',
      organizationId: null,
      user: null,
      actingVia: null,
      scopes: [],
      account: { killSwitch: false, rateLimitReads: null, rateLimitWrites: null },
    };
    const db = app().database.db;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['memories', () => listMemories(db, accountWide, ListMemoriesQuery.parse({}))],
      ['files', () => getFile(db, accountWide, randomUUID())],
      ['contacts', () => getContact(db, accountWide, randomUUID())],
      ['profile', () => getProfile(db, accountWide)],
    ];
    for (const [area, run] of calls) {
      const err = await run().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, area).toBeInstanceOf(AppError);
      const { status, code, message } = err as AppError;
      expect({ area, status, code, message }).toEqual({ area, status: 401, code: kernel.body.error_code, message: kernel.body.error });
    }
  });
});
