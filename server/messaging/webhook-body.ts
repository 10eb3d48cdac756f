import { AppError } from '@/server/http/errors';
import type { ApiRequest } from '@/server/http/request';

/*
 * What the provider webhooks share: the raw body read once (a signature covers the exact bytes),
 * bounded, and an empty 200. (A port adapter's payload is validated by channels/webhook-json.ts.)
 */

const MAX_BODY = 1_000_000;

export async function rawBody(req: ApiRequest): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The request body is too large');
  const text = await req.text();
  if (text.length > MAX_BODY) throw new AppError(413, 'payload_too_large', 'The request body is too large');
  return text;
}

export const emptyOk = () => new Response(null, { status: 200, headers: { 'Cache-Control': 'no-store' } });
