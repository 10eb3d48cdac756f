import type { MemoryRow } from '@/db/schema';
import { renderData } from '@/server/memories/embeddings';

/*
 * One memory as the model reads it in a run's context (spec 6, Recall): its id first, so the
 * agent can name it to update_memory or forget_memory; then its words, or a structured
 * memory's data read out (kind structured is rendered, never skipped); then what places it:
 * its descriptive tags, its dates, whether it is a team's.
 */

/** A single memory never takes more than this of the budget; search_memories shows it whole. */
const MAX_MEMORY_CHARS = 1_500;

const day = (d: Date) => d.toISOString().slice(0, 10);

export function memoryLine(m: MemoryRow): string {
  const words = (m.content ?? '').replace(/\s+/g, ' ').trim();
  const data = m.data && Object.keys(m.data).length ? renderData(m.data, m.resourceType) : '';
  let body = [words, data].filter(Boolean).join(' | ') || '(empty)';
  if (body.length > MAX_MEMORY_CHARS) body = `${body.slice(0, MAX_MEMORY_CHARS - 1)}…`;
  const tags = m.tags.filter((t) => t !== 'general');
  const when = m.startDate ? (m.endDate ? `${day(m.startDate)} to ${day(m.endDate)}` : `from ${day(m.startDate)}`) : m.endDate ? `until ${day(m.endDate)}` : '';
  const notes = [tags.length ? tags.join(', ') : '', when, m.scope === 'team' ? 'team memory' : '', m.pinned ? 'pinned' : ''].filter(Boolean);
  return `- [${m.id}] ${body}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}
