'use client';
import { useEffect } from 'react';
import { Problem } from './_ui/states';

/** A page that failed to render: said plainly, with a way to try again. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    document.title = 'Something went wrong · Steward';
  }, []);
  return (
    <main id="main" style={{ maxWidth: 1040, margin: '0 auto', padding: '1rem 1.5rem' }}>
      <h1>Something went wrong</h1>
      <Problem>
        <p>This page could not be shown{error.digest ? ` (reference ${error.digest})` : ''}. Your data is unchanged.</p>
      </Problem>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </main>
  );
}
