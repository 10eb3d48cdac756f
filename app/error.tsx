'use client';
import { RotateCcw } from 'lucide-react';
import { useEffect } from 'react';
import { Button } from './_ui/button';
import { Problem } from './_ui/states';

/** A page that failed to render: said plainly, with a way to try again and a way home. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    document.title = 'Something went wrong · Steward';
  }, []);
  return (
    <main id="main" className="mx-auto max-w-2xl px-4 py-12">
      <h1>Something went wrong</h1>
      <Problem className="my-4">
        <p>This page could not be shown{error.digest ? ` (reference ${error.digest})` : ''}. Your data is unchanged.</p>
      </Problem>
      <div className="flex flex-wrap gap-2">
        <Button onClick={reset}>
          <RotateCcw aria-hidden="true" />
          Try again
        </Button>
        <Button variant="secondary" asChild>
          <a href="/">Go home</a>
        </Button>
      </div>
    </main>
  );
}
