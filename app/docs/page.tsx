import { ApiReference } from './reference';

export const metadata = { title: 'Steward API reference' };

export default function DocsPage() {
  return (
    <main style={{ maxWidth: 980, margin: '2rem auto', padding: '0 1rem' }}>
      <h1>Steward API reference</h1>
      <p>
        Generated from the same registry and schemas that serve requests (<a href="/api/openapi.json">openapi.json</a>). Paste a
        credential to try any call from this page.
      </p>
      <ApiReference />
    </main>
  );
}
