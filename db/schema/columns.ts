import { text, timestamp } from 'drizzle-orm/pg-core';
import { randomBytes } from 'node:crypto';

/**
 * Ids are 24 lower-case hex characters (the shape the provision endpoint accepts as `id`), 96
 * random bits. The bytes come from the CSPRNG 256 ids at a time: one call of it per id (a system
 * call here) was a visible part of the engine's CPU per step, which writes a log row's id.
 */
export const newId = () => {
  if (idOffset + 12 > idPool.length) {
    idPool = randomBytes(12 * 256);
    idOffset = 0;
  }
  return idPool.toString('hex', idOffset, (idOffset += 12));
};
let idPool = Buffer.alloc(0);
let idOffset = 0;

export const idColumn = () => text('id').primaryKey().$defaultFn(newId);
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp('updated_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
