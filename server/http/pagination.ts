import { z } from 'zod';

/**
 * The one pagination fragment. A perPage above 100 is capped at 100 rather than refused,
 * and the response says which size was used.
 */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  perPage: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});
export type PageQuery = z.infer<typeof PageQuery>;

export const PageFields = { page: z.number().int(), perPage: z.number().int(), total: z.number().int() };

export const pageWindow = (q: PageQuery) => ({ limit: q.perPage, offset: (q.page - 1) * q.perPage });

export const pageInfo = (q: PageQuery, total: number) => ({ page: q.page, perPage: q.perPage, total });
