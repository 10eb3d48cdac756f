import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { connect, type Database } from '@/db/client';
import { withDatabase } from '@/db/embedded';

/** A fresh database for one test file, copied from the migrated template. */
export async function createTestDatabase(): Promise<{ url: string; database: Database; drop: () => Promise<void> }> {
  const serverUrl = inject('pgServerUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(withDatabase(serverUrl, 'postgres'));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE steward_template`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const database = connect(url);
  return {
    url,
    database,
    drop: async () => {
      await database.close();
      const c = new pg.Client(withDatabase(serverUrl, 'postgres'));
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
