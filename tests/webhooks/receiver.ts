import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: http.IncomingHttpHeaders; body: string; json: { type: string; timestamp: string; data: Record<string, any> } };

/**
 * A customer's endpoint on loopback: records every POST and answers with the status the test
 * scripts (a queue of statuses, then 200).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const answers: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, answerNext: (...statuses: number[]) => answers.push(...statuses), close: () => new Promise<void>((r) => server.close(() => r())) };
}
