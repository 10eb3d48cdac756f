/**
 * Reference syntax inside chunk content:
 *   {{block:block_name}}  the content of that tenant block, inlined (blocks may reference
 *                         blocks, up to 5 levels; a cycle or a missing block stays as written)
 *   {{variable_name}}     a declared variable: replaced by its metadata.default when it has
 *                         one, otherwise left as {{variable_name}} for the caller to fill
 */
const BLOCK_REF = /\{\{\s*block:([a-z][a-z0-9_]*)\s*\}\}/g;
const VAR_REF = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const MAX_DEPTH = 5;

type Chunk = { content: string; order: number };
type Variable = { name: string; metadata?: Record<string, unknown> };

/** Block names referenced by the given texts, in first-seen order. */
export function referencedBlocks(texts: string[]): string[] {
  const names = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(BLOCK_REF)) names.add(m[1]);
  return [...names];
}

export function orderedChunks<T extends Chunk>(chunks: T[]): T[] {
  return chunks.map((c, i) => ({ c, i })).sort((a, b) => a.c.order - b.c.order || a.i - b.i).map((x) => x.c);
}

export function renderText(text: string, blocks: Map<string, string>, variables: Variable[], depth = 0, seen: string[] = []): string {
  const withBlocks = text.replace(BLOCK_REF, (whole, name: string) => {
    const content = blocks.get(name);
    if (content === undefined || depth >= MAX_DEPTH || seen.includes(name)) return whole;
    return renderText(content, blocks, [], depth + 1, [...seen, name]);
  });
  if (depth > 0) return withBlocks;
  const defaults = new Map(
    variables
      .filter((v) => v.metadata && typeof v.metadata.default === 'string')
      .map((v) => [v.name, v.metadata!.default as string]),
  );
  return withBlocks.replace(VAR_REF, (whole, name: string) => defaults.get(name) ?? whole);
}

/** The system message as a model would receive it: chunks in order, blank line between. */
export function renderSystemPrompt(chunks: Chunk[], blocks: Map<string, string>, variables: Variable[]): string {
  return orderedChunks(chunks)
    .map((c) => renderText(c.content, blocks, variables))
    .join('\n\n');
}
