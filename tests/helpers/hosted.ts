import http from 'node:http';

export type HostedResult = { status: number; headers: http.IncomingHttpHeaders; body: string; json: () => any };

/** A request to the test server as a browser on a hosted domain would send it (fetch cannot set Host). */
export function hosted(
  url: string,
  opts: { host: string; method?: string; form?: Record<string, string>; headers?: Record<string, string> },
): Promise<HostedResult> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? (body ? 'POST' : 'GET'),
        headers: { Host: opts.host, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...opts.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
