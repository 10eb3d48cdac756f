import { bigint, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * Row counts of the big lists (memories, contacts, users, traces), kept by database triggers
 * (migration list_count_triggers) in the same transaction as the insert, update or delete, so
 * a list's `total` is a sum of a few rows instead of a count over the whole set.
 *
 * `owner` names whose rows are counted (`u:<account>:<user>`, `t:<account>:<team>`,
 * `o:<account>:<organization>`...), `facet` the single-filter subset (`''` for all rows,
 * `status:active`, `tag:general`...). Each owner and facet is spread over a few `slot`s so
 * concurrent writers rarely wait on one another's row; readers add the slots up.
 * `version` moves on every change that can move a row in or out of any filtered view of the
 * owner's list: a page boundary remembered at one version is valid while the sum stays put.
 */
export const listCounts = pgTable(
  'list_counts',
  {
    list: text('list').notNull(),
    owner: text('owner').notNull(),
    facet: text('facet').notNull().default(''),
    slot: smallint('slot').notNull().default(0),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'list_counts_pkey', columns: [t.list, t.owner, t.facet, t.slot] })],
);
