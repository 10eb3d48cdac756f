import type { z } from 'zod';
import { invalidFields } from '@/server/http/errors';
import { parseOrThrow } from '@/server/http/validate';

/*
 * A port adapter's webhook body: JSON, in the provider's schema (parsed loosely: providers add
 * fields), with no text PostgreSQL cannot store (the delivery is kept as JSON). Anything else is a
 * 400 naming each field (under `root`: Slack's interactions are JSON inside a form's `payload`),
 * before anything is read from it or stored.
 */
export function parseWebhookJson<S extends z.ZodType>(schema: S, raw: Buffer | string, root = 'body'): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    throw invalidFields([{ field: root, problem: 'is not JSON' }]);
  }
  return parseOrThrow(schema, json, root);
}
