import { and, eq, ilike, or, sql } from 'drizzle-orm';
import { containsPattern } from '@/server/http/like';
import type { z } from 'zod';
import type { Db } from '@/db/client';
import { countedVersion, readPage } from '@/db/queries/list-page';
import { traces, traceSearchText, type TraceRow } from '@/db/schema';
import { badRequest, notFound } from '@/server/http/errors';
import { problemsOf } from '@/server/http/validate';
import { pageWindow } from '@/server/http/pagination';
import { tenantPage } from './contracts';
import { TraceInput, type ListTracesQuery } from './traces-contracts';

const summary = (t: TraceRow) => ({
  traceId: t.id,
  promptName: t.promptName,
  status: t.status,
  tags: t.tags,
  inputTokens: t.inputTokens,
  outputTokens: t.outputTokens,
  totalTokens: t.totalTokens,
  cost: t.cost,
  duration: t.durationMs,
  modelConfig: t.modelConfig,
  createdAt: t.createdAt.toISOString(),
});

/**
 * The writing side: the agent runtime calls this for every model call it makes for a
 * tenant. Validates like an endpoint would; returns the stored trace's id.
 */
export async function recordTrace(db: Db, tenantId: string, input: TraceInput): Promise<{ traceId: string }> {
  const parsed = TraceInput.safeParse(input);
  if (!parsed.success) throw badRequest(problemsOf(parsed.error, 'trace').map((p) => `${p.field}: ${p.problem}`).join('; '));
  const t = parsed.data;
  const [row] = await db
    .insert(traces)
    .values({
      ...(t.traceId ? { id: t.traceId } : {}),
      accountId: tenantId,
      promptName: t.promptName,
      status: t.status,
      tags: t.tags,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      totalTokens: t.totalTokens ?? t.inputTokens + t.outputTokens,
      cost: t.cost,
      costCurrency: t.costCurrency,
      durationMs: t.duration,
      modelConfig: t.modelConfig,
      messages: t.messages,
      output: t.output,
      tools: t.tools,
      toolChoice: t.toolChoice,
      metadata: t.metadata,
      timestamp: t.timestamp ?? Date.now(),
    })
    .onConflictDoNothing()
    .returning({ id: traces.id });
  if (!row) throw badRequest(`traceId: ${t.traceId} already exists`);
  return { traceId: row.id };
}


/**
 * Newest first; `search` matches the prompt name or the model, case-insensitively (candidates
 * through the trigram index on both, then the exact per-field test).
 */
export async function listTraces(db: Db, tenantId: string, q: z.infer<typeof ListTracesQuery>) {
  const term = q.search ? containsPattern(q.search) : null;
  const owner = `a:${tenantId}`;
  const { rows } = await readPage(
    db,
    {
      table: traces,
      parts: [and(eq(traces.accountId, tenantId), term ? and(ilike(traceSearchText(traces), term), or(ilike(traces.promptName, term), sql`${traces.modelConfig}->>'model' ILIKE ${term}`)) : undefined)!],
      total: null,
      version: countedVersion('traces', [owner]),
      key: JSON.stringify(['traces', owner, q.search ?? null]),
    },
    // One row past the page tells whether there is a next one.
    { ...pageWindow({ page: q.page, perPage: q.per_page }), lookahead: 1 },
  );
  return tenantPage(q, rows.map(summary));
}

/** The detail is the trace itself at the top level (not wrapped in `data`), as the spec shows. */
export async function getTrace(db: Db, tenantId: string, traceId: string) {
  const [t] = await db
    .select()
    .from(traces)
    .where(and(eq(traces.accountId, tenantId), eq(traces.id, traceId)))
    .limit(1);
  if (!t) throw notFound('Trace');
  return {
    ...summary(t),
    messages: t.messages,
    output: (t.output ?? null) as { message: string | null; success: boolean } | null,
    costCurrency: t.costCurrency,
    tools: t.tools,
    toolChoice: t.toolChoice,
    metadata: t.metadata,
    timestamp: t.timestamp,
  };
}
