export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: '3rem auto', padding: '0 1rem' }}>
      <h1>Steward</h1>
      <p>An open, self-hostable platform for AI assistants that work for end users.</p>
      <ul>
        <li>
          <a href="/docs">API reference</a> (interactive)
        </li>
        <li>
          <a href="/api/openapi.json">OpenAPI 3.1 document</a>
        </li>
      </ul>
    </main>
  );
}
