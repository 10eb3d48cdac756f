/**
 * What every bare baseline server does first, as Steward does: find the presented API key by its
 * SHA-256 hash (one prepared statement joined to its account). Deliberately minimal: no
 * validation, rate limit or logging.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

export const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

export async function lookup(auth: string | undefined) {
  const key = auth?.startsWith('Bearer ') ? auth.slice(7) : '';
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query({
    name: 'key',
    text: 'SELECT k.id, k.account_id, k.organization_id, k.user_id, k.scopes, k.status FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1',
    values: [hash],
  });
  return rows[0] && rows[0].status === 'active' ? rows[0] : null;
}
