import { and, eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { promptVersions, prompts } from '@/db/schema';
import { renderSystemPrompt } from './render';

/*
 * A published prompt rendered for use outside the tenant API (a prompt skill, server/workflows):
 * the version's own system chunks with the blocks it referenced when it was published, each
 * variable replaced by the value given, else by its default; a variable with neither stays as
 * written ({{name}}), as renderedSystemPrompt leaves it. A draft is never used: what runs is what
 * was published.
 */

type Json = Record<string, unknown>;

/** The version to use: the one named, or the latest published; null when there is none. */
export async function publishedVersion(db: Tx, tenantId: string, promptName: string, version: number | null) {
  const [p] = await db
    .select({ id: prompts.id, published: prompts.publishedVersion })
    .from(prompts)
    .where(and(eq(prompts.accountId, tenantId), eq(prompts.promptName, promptName)))
    .limit(1);
  const wanted = version ?? p?.published ?? null;
  if (!p || wanted === null) return null;
  const [v] = await db
    .select()
    .from(promptVersions)
    .where(and(eq(promptVersions.promptId, p.id), eq(promptVersions.versionNumber, wanted)))
    .limit(1);
  return v ?? null;
}

/** The rendered text of a published version (system chunks; the user chunks when it has no system ones), or null when there is no such version. */
export async function renderPublishedPrompt(db: Tx, tenantId: string, promptName: string, version: number | null, values: Record<string, string> = {}): Promise<string | null> {
  const v = await publishedVersion(db, tenantId, promptName, version);
  if (!v) return null;
  const content = v.content as Json;
  const declared = ((content.variables as Json[] | undefined) ?? []).map((x) => ({ name: String(x.name ?? ''), metadata: (x.metadata as Json | undefined) ?? {} }));
  // A value the skill gives wins over the default: it is passed as the default renderText uses.
  const given = Object.entries(values).map(([name, value]) => ({ name, metadata: { default: value } }));
  const variables = [...given, ...declared.filter((d) => !(d.name in values))];
  const blocks = new Map(v.blocks.map((b) => [b.blockName, b.content]));
  const system = (content.systemChunks as Array<{ content: string; order: number }> | undefined) ?? [];
  const chunks = system.length ? system : ((content.userChunks as Array<{ content: string; order: number }> | undefined) ?? []);
  return renderSystemPrompt(chunks, blocks, variables);
}
