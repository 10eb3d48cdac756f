import { eq } from 'drizzle-orm';
import { TRPCError } from '@trpc/server';
import { users } from '@/db/schema';
import { AppError } from '@/server/http/errors';
import { sessionSetCookie } from '@/server/sign-in/session';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import type { TestServer } from './server';

/** The hosted app's procedures as the person signed in on `host` calls them (a real session cookie). */
export async function hostedCaller(server: TestServer, host: string, userId: string) {
  const db = server.database.db;
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  const cookie = (await sessionSetCookie(db, row!, 'email', true)).split(';')[0]!;
  return appRouter.createCaller(await portalContext(db, new Headers({ host, cookie })));
}

/** How a procedure call ended: 'resolved', or the tRPC code with the service's HTTP status when it had one ('FORBIDDEN:403'). */
export async function procedureOutcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    if (e instanceof TRPCError && e.cause instanceof AppError) return `${e.code}:${e.cause.status}`;
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}
