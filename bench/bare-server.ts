/**
 * The baseline: a bare node:http + pg server doing the same queries as Steward for
 * GET /me and GET /api-keys (key lookup, then the read), with nothing else.
 */
import http from 'node:http';
import { lookup, pool } from './bare-key';

const port = Number(process.env.PORT);

http
  .createServer(async (req, res) => {
    const k = await lookup(req.headers.authorization);
    if (!k) return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"ok":false}');
    let body: unknown;
    if (req.url?.startsWith('/api/me')) {
      body = { ok: true, accountId: k.account_id, email: null, orgId: k.organization_id, userId: k.user_id, scopes: k.scopes };
    } else {
      const [list, count] = await Promise.all([
        pool.query({
          name: 'list',
          text: 'SELECT id, account_id, organization_id, user_id, label, prefix, scopes, status, last_used_at, expires_at, created_at FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0',
          values: [k.account_id],
        }),
        pool.query({ name: 'count', text: 'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1', values: [k.account_id] }),
      ]);
      body = { ok: true, apiKeys: list.rows, page: 1, perPage: 20, total: count.rows[0].n };
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
