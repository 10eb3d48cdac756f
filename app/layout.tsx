import type { ReactNode } from 'react';
import './global.css';

// Every page is rendered per request, so its scripts carry that response's CSP nonce (proxy.ts);
// a page prerendered at build time would have scripts without it, and the browser would refuse them.
export const dynamic = 'force-dynamic';

export const metadata = { title: 'Steward', description: 'Assistants that work for end users' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        {children}
      </body>
    </html>
  );
}
