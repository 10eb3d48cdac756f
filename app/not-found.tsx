import Link from 'next/link';
import { AuthShell } from './_ui/auth-shell';
import { Button } from './_ui/button';

export const metadata = { title: 'Not found · Steward' };

/*
 * The branded 404: what happened in plain words and the way back. Another person's item is "not
 * found" too. It is the root layout's not-found boundary, which Next renders into every page's
 * answer (not only when something is missing): so it reads nothing about the person and draws the
 * light signed-out frame, not the navigation. A full frame here cost every page a session lookup
 * and the whole navigation a second time (issue 45: about a sixth of a page’s server render).
 */
export default function NotFound() {
  return (
    <AuthShell title="There is nothing here">
      <p className="mb-5 text-muted">The link may be old, or what it pointed to was removed or belongs to someone else.</p>
      <Button asChild className="w-full justify-center">
        <Link href="/">Go to your home page</Link>
      </Button>
    </AuthShell>
  );
}
