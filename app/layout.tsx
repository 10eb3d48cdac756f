import type { ReactNode } from 'react';
import './global.css';

export const metadata = { title: 'Steward', description: 'Assistants that work for end users' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', margin: 0, color: '#1a1a1a' }}>
        {children}
      </body>
    </html>
  );
}
