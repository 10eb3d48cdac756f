import { Compass } from 'lucide-react';
import Link from 'next/link';
import { headers } from 'next/headers';
import { sharedDatabase } from '@/db/client';
import { appRouter } from '@/server/trpc/app-router';
import { portalContext } from '@/server/trpc/context';
import { Button } from './_ui/button';
import { HostedFrame, type Me } from './_ui/layout';
import { Empty } from './_ui/states';

export const metadata = { title: 'Not found · Steward' };

/** Who is signed in, if anyone (never throws: a 404 page must not fail itself). */
async function who(): Promise<Me> {
  try {
    const ctx = await portalContext(sharedDatabase().db, await headers());
    return await appRouter.createCaller(ctx).auth.me();
  } catch {
    return null;
  }
}

/** The branded 404: what happened in plain words and the way back. Another person's item is "not found" too. */
export default async function NotFound() {
  const me = await who();
  return (
    <HostedFrame me={me} title="Page not found">
      <Empty title="There is nothing here" icon={Compass} action={<Button asChild><Link href="/">Go to your home page</Link></Button>}>
        <p>The link may be old, or what it pointed to was removed or belongs to someone else.</p>
      </Empty>
    </HostedFrame>
  );
}
