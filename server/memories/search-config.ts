/**
 * The PostgreSQL text search configuration of a locale: the language a memory is indexed in
 * (stemming, stop words) and a query is read in. The same table is in the migration that indexed
 * the memories written before it (db/migrations/0066_memory_recall.sql). A language PostgreSQL
 * ships no configuration for is read with `simple`: words as they are, lower-cased.
 */
const CONFIGS: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  et: 'estonian',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  nb: 'norwegian',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

export function searchConfigFor(locale: string | null | undefined): string {
  return CONFIGS[(locale ?? '').toLowerCase().split(/[-_]/)[0]] ?? 'simple';
}
