import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Tx } from './client';

/**
 * Independent reads at once where that gains anything. On the pool each goes out on its own
 * connection, together. A transaction holds one connection, which runs one statement at a time:
 * node-postgres only queued a statement sent while another ran (deprecated, and refused from
 * pg@9), so on a transaction the reads run one after another, in the order given. Callers that
 * may be handed either (a tool step's transaction, a page's pool) use this instead of Promise.all.
 */
export async function atOnce<T extends readonly unknown[]>(db: Tx, reads: readonly [...{ [K in keyof T]: () => PromiseLike<T[K]> }]): Promise<T> {
  if (!(db instanceof PgTransaction)) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const out: unknown[] = [];
  for (const read of reads) out.push(await read());
  return out as unknown as T;
}
