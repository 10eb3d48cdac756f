import type { z } from 'zod';
import { AppError, invalidFields } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';
import { parseOrThrow } from '@/server/http/validate';

/*
 * What the provider webhooks (Slack events and interactivity, Bot Framework activities) share:
 * the raw body read once (a signature covers the exact bytes), bounded, and provider payloads
 * validated with Zod into a 400 naming each field.
 */

const MAX_BODY = 1_000_000;

export async function rawBody(req: ApiRequest): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The request body is too large');
  const text = await req.text();
  if (text.length > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The request body is too large');
  return text;
}

export function parseJson(text: string, field = 'body'): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidFields([{ field, problem: 'is not valid JSON' }]);
  }
}

/** Zod, plus the kernel's refusal of text PostgreSQL cannot store (payloads are kept as JSON). */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, root = 'body'): z.output<S> {
  return parseOrThrow(schema, value, root);
}

export const emptyOk = () => new Response(null, { status: 200, headers: { 'Cache-Control': 'no-store' } });
