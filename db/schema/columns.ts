import { text, timestamp } from 'drizzle-orm/pg-core';
import { randomBytes } from 'node:crypto';

/** Ids are 24 lower-case hex characters (the shape the provision endpoint accepts as `id`). */
export const newId = () => randomBytes(12).toString('hex');

export const idColumn = () => text('id').primaryKey().$defaultFn(newId);
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp('updated_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
