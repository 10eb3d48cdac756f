import type { z } from 'zod';
import { invalidFields } from '@/server/http/errors';

/*
 * A port adapter's webhook body: JSON, in the provider's schema (parsed loosely: providers add
 * fields). Anything else is a 400 naming each field, before anything is read from it or stored.
 */
export function parseWebhookJson<S extends z.ZodType>(schema: S, raw: Buffer): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidFields([{ field: 'body', problem: 'is not JSON' }]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidFields(parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'body', problem: i.message })));
  return parsed.data;
}
