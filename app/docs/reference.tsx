'use client';

import { useEffect, useMemo, useState } from 'react';

type Param = { name: string; in: 'path' | 'query'; required?: boolean; schema?: { type?: string } };
type Operation = {
  summary?: string;
  tags?: string[];
  parameters?: Param[];
  requestBody?: { content?: { 'application/json'?: { schema?: unknown } } };
  responses?: Record<string, { description?: string }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };
type Op = { method: string; path: string; op: Operation };

export function ApiReference() {
  const [doc, setDoc] = useState<Doc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState('');
  const [userEmail, setUserEmail] = useState('');
  const [filter, setFilter] = useState('');

  useEffect(() => {
    fetch('/api/openapi.json')
      .then((r) => r.json())
      .then(setDoc)
      .catch((e: Error) => setError(e.message));
  }, []);

  const groups = useMemo(() => {
    const out = new Map<string, Op[]>();
    for (const [path, methods] of Object.entries(doc?.paths ?? {})) {
      for (const [method, op] of Object.entries(methods)) {
        if (filter && !`${method} ${path} ${op.summary ?? ''}`.toLowerCase().includes(filter.toLowerCase())) continue;
        const tag = op.tags?.[0] ?? 'Other';
        out.set(tag, [...(out.get(tag) ?? []), { method: method.toUpperCase(), path, op }]);
      }
    }
    return [...out.entries()];
  }, [doc, filter]);

  if (error) return <p role="alert">Could not load the API document: {error}</p>;
  if (!doc) return <p>Loading…</p>;
  return (
    <div>
      <fieldset style={{ display: 'grid', gap: 8, marginBottom: 16 }}>
        <legend>Credentials</legend>
        <label>
          Bearer credential{' '}
          <input type="password" value={token} onChange={(e) => setToken(e.target.value)} style={{ width: '60%' }} autoComplete="off" />
        </label>
        <label>
          X-User-Email (optional, with an account key){' '}
          <input type="email" value={userEmail} onChange={(e) => setUserEmail(e.target.value)} />
        </label>
      </fieldset>
      <label>
        Filter operations <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </label>
      {groups.map(([tag, ops]) => (
        <section key={tag}>
          <h2>{tag}</h2>
          {ops.map((o) => (
            <OperationView key={o.method + o.path} {...o} token={token} userEmail={userEmail} />
          ))}
        </section>
      ))}
    </div>
  );
}

function OperationView({ method, path, op, token, userEmail }: Op & { token: string; userEmail: string }) {
  const params = op.parameters ?? [];
  const hasBody = Boolean(op.requestBody);
  const [values, setValues] = useState<Record<string, string>>({});
  const [body, setBody] = useState('{}');
  const [result, setResult] = useState<{ status: number; text: string } | null>(null);

  async function send() {
    let url = '/api' + path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(values[n] ?? ''));
    const q = new URLSearchParams();
    for (const p of params) if (p.in === 'query' && values[p.name]) q.set(p.name, values[p.name]);
    if ([...q].length) url += `?${q}`;
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (userEmail) headers['X-User-Email'] = userEmail;
    if (hasBody) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: hasBody ? body : undefined });
    const text = await res.text();
    let pretty = text;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: show as is
    }
    setResult({ status: res.status, text: pretty });
  }

  const id = `${method}-${path}`.replace(/[^\w-]/g, '_');
  return (
    <details style={{ border: '1px solid #ddd', borderRadius: 6, margin: '6px 0', padding: '6px 10px' }}>
      <summary>
        <code style={{ fontWeight: 700, marginRight: 8 }}>{method}</code>
        <code>{path}</code> <span style={{ color: '#555' }}>{op.summary}</span>
      </summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
        style={{ display: 'grid', gap: 6, marginTop: 8 }}
      >
        {params.map((p) => (
          <label key={p.in + p.name} htmlFor={`${id}-${p.name}`}>
            {p.name} ({p.in}
            {p.required ? ', required' : ''}){' '}
            <input id={`${id}-${p.name}`} value={values[p.name] ?? ''} onChange={(e) => setValues({ ...values, [p.name]: e.target.value })} />
          </label>
        ))}
        {hasBody && (
          <label htmlFor={`${id}-body`}>
            JSON body
            <textarea id={`${id}-body`} rows={5} value={body} onChange={(e) => setBody(e.target.value)} style={{ width: '100%', fontFamily: 'monospace' }} />
          </label>
        )}
        <button type="submit">Send</button>
        <p style={{ margin: 0, color: '#555' }}>Documented answers: {Object.keys(op.responses ?? {}).join(', ')}</p>
        {result && (
          <output aria-live="polite">
            <strong>{result.status}</strong>
            <pre style={{ background: '#f6f6f6', padding: 8, overflowX: 'auto' }}>{result.text}</pre>
          </output>
        )}
      </form>
    </details>
  );
}
