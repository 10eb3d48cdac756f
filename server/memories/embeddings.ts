import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';
import type { MemoryRow } from '@/db/schema';
import { unit } from './vector-buckets';

/*
 * Vectors of memories from an OpenAI-compatible `/embeddings` endpoint (spec 6, Recall):
 * STEWARD_EMBEDDINGS_MODEL names the model; the endpoint is STEWARD_EMBEDDINGS_BASE_URL, else
 * STEWARD_MODEL_BASE_URL; the key STEWARD_EMBEDDINGS_API_KEY, else STEWARD_MODEL_API_KEY. Read
 * on every use, so a process picks up a change without a restart of its callers' state.
 * Without a model, search and recall rank by text alone and give the same answers' shape.
 */

export type EmbeddingsSettings = { model: string; baseUrl: string; apiKey: string | undefined };

export function embeddingsSettings(env: NodeJS.ProcessEnv = process.env): EmbeddingsSettings | null {
  const model = env.STEWARD_EMBEDDINGS_MODEL?.trim();
  const baseUrl = (env.STEWARD_EMBEDDINGS_BASE_URL ?? env.STEWARD_MODEL_BASE_URL)?.trim();
  if (!model || !baseUrl) return null;
  return { model, baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: (env.STEWARD_EMBEDDINGS_API_KEY ?? env.STEWARD_MODEL_API_KEY)?.trim() || undefined };
}

/** A background batch may wait this long for its vectors; a query's vector (on a reader's path) much less. */
export const EMBED_BATCH_MS = 60_000;
export const EMBED_QUERY_MS = 3_000;

/**
 * Unit vectors of the texts, in order, through the ai SDK's OpenAI-compatible provider. A query's
 * vector is asked once (`retries` 0: a reader does not wait out a backoff); a background batch
 * may be retried once, and is tried again later anyway.
 */
export async function embedTexts(settings: EmbeddingsSettings, texts: string[], timeoutMs: number, retries = 0): Promise<number[][]> {
  if (!texts.length) return [];
  const provider = createOpenAICompatible({ name: 'steward-embeddings', baseURL: settings.baseUrl, apiKey: settings.apiKey });
  const { embeddings } = await embedMany({
    model: provider.embeddingModel(settings.model),
    values: texts,
    maxRetries: retries,
    abortSignal: AbortSignal.timeout(timeoutMs),
  });
  return embeddings.map((e) => unit(e));
}

/** Most embedding models read up to a few thousand tokens: the start of a long memory stands for it. */
const EMBED_CHARS = 8_000;

/** What a memory's vector is computed from: its words, a structured memory's data read out, its descriptive tags. */
export function embeddingText(m: Pick<MemoryRow, 'content' | 'data' | 'tags' | 'resourceType'>): string {
  const tags = m.tags.filter((t) => !['general', 'date-memory'].includes(t));
  return [m.content ?? '', m.data ? renderData(m.data, m.resourceType) : '', tags.length ? `(${tags.join(', ')})` : ''].filter(Boolean).join('\n').slice(0, EMBED_CHARS);
}

/**
 * A structured memory's data as a line a person (and a model) reads: `type: key: value; key:
 * value`, nested objects as `key.sub`, lists joined by commas. Used by recall's context too.
 */
export function renderData(data: Record<string, unknown>, resourceType: string | null, maxChars = 1_500): string {
  const parts: string[] = [];
  const walk = (value: unknown, path: string, depth: number) => {
    if (value === null || value === undefined || value === '') return;
    if (Array.isArray(value)) {
      const flat = value.every((v) => v === null || typeof v !== 'object');
      if (flat) parts.push(`${path}: ${value.filter((v) => v !== null && v !== '').join(', ')}`);
      else value.forEach((v, i) => walk(v, `${path}[${i + 1}]`, depth + 1));
    } else if (typeof value === 'object') {
      if (depth >= 4) parts.push(`${path}: ${JSON.stringify(value)}`);
      else for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, path ? `${path}.${humanKey(k)}` : humanKey(k), depth + 1);
    } else parts.push(`${path}: ${String(value)}`);
  };
  walk(data, '', 0);
  const line = `${resourceType ? `${resourceType}: ` : ''}${parts.join('; ')}`;
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

/** `preferredAirline` → `preferred airline`, `seat_pref` → `seat pref`. */
const humanKey = (k: string) => k.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
