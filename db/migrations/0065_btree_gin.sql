-- Ranked memory search and recall keep the owner and team columns in the same GIN index as the
-- text search document and the trigrams (memories_search, memories_owner_trgm), so one user's
-- matches of a term are read without the rest of the account's. btree_gin gives GIN the
-- equality operator classes for plain columns; it ships with PostgreSQL (contrib), the embedded
-- server included.
CREATE EXTENSION IF NOT EXISTS btree_gin;
