-- Trigram indexes serve the lists' case-insensitive substring searches (ILIKE '%term%'):
-- memories' content, contacts, users and members, traces. pg_trgm ships with PostgreSQL
-- (contrib), the embedded server included.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
