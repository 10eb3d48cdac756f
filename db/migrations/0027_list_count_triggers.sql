-- list_counts (db/schema/list-counts.ts) kept by statement-level triggers: every insert, update
-- and delete of memories, contacts, users and traces adjusts the counters in its own
-- transaction, whichever service (or cascade) wrote the rows, so a list's unfiltered or
-- single-filter `total` is a sum of a few counter rows. Owners carry the account id, so a
-- counter never mixes accounts.

-- Each trigger below adds its statement's deltas with one upsert per (owner, facet), in a
-- stable order (no deadlock between two such statements), into the slot of this backend:
-- concurrent writers of one owner mostly land on different rows. A facet whose rows only
-- changed in place keeps its count, but its base row ('' facet) still moves its version:
-- filtered views may have changed.
-- Memories (internal notes are never listed, never counted): the author's, a team's
-- team-scoped ones, and the author's within a team (what the author and a teammate both see,
-- subtracted once from a visible total). Facets: each tag, scope, kind, resource type.
CREATE OR REPLACE FUNCTION steward_memory_count_keys(account text, author text, team text, scope text, internal boolean, kind text, resource_type text, tags jsonb)
RETURNS TABLE (owner text, facet text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT o.owner, f.facet
  FROM (VALUES
    ('u:' || account || ':' || author),
    (CASE WHEN scope = 'team' AND team IS NOT NULL THEN 't:' || account || ':' || team END),
    (CASE WHEN scope = 'team' AND team IS NOT NULL THEN 'ut:' || account || ':' || author || ':' || team END)
  ) AS o(owner)
  CROSS JOIN (
    SELECT ''
    UNION SELECT 'scope:' || scope
    UNION SELECT 'kind:' || kind
    UNION SELECT 'type:' || resource_type WHERE resource_type IS NOT NULL
    UNION SELECT 'tag:' || t FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(tags) = 'array' THEN tags ELSE '[]'::jsonb END) AS t
  ) AS f(facet)
  WHERE NOT internal AND o.owner IS NOT NULL
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION steward_memories_list_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'memories', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, count(*), 1
    FROM new_rows r, steward_memory_count_keys(r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'memories', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, -count(*), 1
    FROM old_rows r, steward_memory_count_keys(r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSE
    -- Only rows whose counted or searched fields changed: their old keys leave, the new ones enter.
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'memories', d.owner, d.facet, (pg_backend_pid() % 4)::smallint, sum(d.delta), 1
    FROM (
      SELECT k.owner, k.facet, -1 AS delta
      FROM old_rows r JOIN new_rows x ON x.id = r.id, steward_memory_count_keys(r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags) k
      WHERE (r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags, r.content) IS DISTINCT FROM (x.account_id, x.user_id, x.team_id, x.scope, x.internal, x.kind, x.resource_type, x.tags, x.content)
      UNION ALL
      SELECT k.owner, k.facet, 1
      FROM new_rows r JOIN old_rows x ON x.id = r.id, steward_memory_count_keys(r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags) k
      WHERE (r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags, r.content) IS DISTINCT FROM (x.account_id, x.user_id, x.team_id, x.scope, x.internal, x.kind, x.resource_type, x.tags, x.content)
    ) d
    GROUP BY d.owner, d.facet
    HAVING sum(d.delta) <> 0 OR d.facet = ''
    ORDER BY d.owner, d.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Contacts: the owner's, by status, scope, source type and each tag.
CREATE OR REPLACE FUNCTION steward_contact_count_keys(account text, owner_user text, status text, scope text, source jsonb, tags jsonb)
RETURNS TABLE (owner text, facet text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'u:' || account || ':' || owner_user, f.facet
  FROM (
    SELECT ''
    UNION SELECT 'status:' || status
    UNION SELECT 'scope:' || scope
    UNION SELECT 'source:' || (source->>'type') WHERE source->>'type' IS NOT NULL
    UNION SELECT 'tag:' || t FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(tags) = 'array' THEN tags ELSE '[]'::jsonb END) AS t
  ) AS f(facet)
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION steward_contacts_list_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'contacts', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, count(*), 1
    FROM new_rows r, steward_contact_count_keys(r.account_id, r.user_id, r.status, r.scope, r.source, r.tags) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'contacts', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, -count(*), 1
    FROM old_rows r, steward_contact_count_keys(r.account_id, r.user_id, r.status, r.scope, r.source, r.tags) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSE
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'contacts', d.owner, d.facet, (pg_backend_pid() % 4)::smallint, sum(d.delta), 1
    FROM (
      SELECT k.owner, k.facet, -1 AS delta
      FROM old_rows r JOIN new_rows x ON x.id = r.id, steward_contact_count_keys(r.account_id, r.user_id, r.status, r.scope, r.source, r.tags) k
      WHERE (r.account_id, r.user_id, r.status, r.scope, r.source, r.tags, r.name, r.preferred_name, r.email, r.title, r.company, r.emails) IS DISTINCT FROM (x.account_id, x.user_id, x.status, x.scope, x.source, x.tags, x.name, x.preferred_name, x.email, x.title, x.company, x.emails)
      UNION ALL
      SELECT k.owner, k.facet, 1
      FROM new_rows r JOIN old_rows x ON x.id = r.id, steward_contact_count_keys(r.account_id, r.user_id, r.status, r.scope, r.source, r.tags) k
      WHERE (r.account_id, r.user_id, r.status, r.scope, r.source, r.tags, r.name, r.preferred_name, r.email, r.title, r.company, r.emails) IS DISTINCT FROM (x.account_id, x.user_id, x.status, x.scope, x.source, x.tags, x.name, x.preferred_name, x.email, x.title, x.company, x.emails)
    ) d
    GROUP BY d.owner, d.facet
    HAVING sum(d.delta) <> 0 OR d.facet = ''
    ORDER BY d.owner, d.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Users: the account's and an organization's (its members), each by status.
CREATE OR REPLACE FUNCTION steward_user_count_keys(account text, organization text, status text)
RETURNS TABLE (owner text, facet text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT o.owner, f.facet
  FROM (VALUES ('a:' || account), (CASE WHEN organization IS NOT NULL THEN 'o:' || account || ':' || organization END)) AS o(owner)
  CROSS JOIN (VALUES (''), ('status:' || status)) AS f(facet)
  WHERE o.owner IS NOT NULL
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION steward_users_list_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'users', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, count(*), 1
    FROM new_rows r, steward_user_count_keys(r.account_id, r.organization_id, r.status) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'users', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, -count(*), 1
    FROM old_rows r, steward_user_count_keys(r.account_id, r.organization_id, r.status) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSE
    -- Most user updates (sessions, profile, preferences) touch nothing listed: no counter row is locked.
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'users', d.owner, d.facet, (pg_backend_pid() % 4)::smallint, sum(d.delta), 1
    FROM (
      SELECT k.owner, k.facet, -1 AS delta
      FROM old_rows r JOIN new_rows x ON x.id = r.id, steward_user_count_keys(r.account_id, r.organization_id, r.status) k
      WHERE (r.account_id, r.organization_id, r.status, r.email, r.external_id, r.name, r.first_name, r.last_name) IS DISTINCT FROM (x.account_id, x.organization_id, x.status, x.email, x.external_id, x.name, x.first_name, x.last_name)
      UNION ALL
      SELECT k.owner, k.facet, 1
      FROM new_rows r JOIN old_rows x ON x.id = r.id, steward_user_count_keys(r.account_id, r.organization_id, r.status) k
      WHERE (r.account_id, r.organization_id, r.status, r.email, r.external_id, r.name, r.first_name, r.last_name) IS DISTINCT FROM (x.account_id, x.organization_id, x.status, x.email, x.external_id, x.name, x.first_name, x.last_name)
    ) d
    GROUP BY d.owner, d.facet
    HAVING sum(d.delta) <> 0 OR d.facet = ''
    ORDER BY d.owner, d.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Traces: the tenant's (the list has no total; the version lets its pages be remembered).
CREATE OR REPLACE FUNCTION steward_trace_count_keys(account text)
RETURNS TABLE (owner text, facet text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'a:' || account, ''
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION steward_traces_list_counts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'traces', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, count(*), 1
    FROM new_rows r, steward_trace_count_keys(r.account_id) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'traces', k.owner, k.facet, (pg_backend_pid() % 4)::smallint, -count(*), 1
    FROM old_rows r, steward_trace_count_keys(r.account_id) k
    GROUP BY k.owner, k.facet
    ORDER BY k.owner, k.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  ELSE
    INSERT INTO list_counts AS c (list, owner, facet, slot, n, version)
    SELECT 'traces', d.owner, d.facet, (pg_backend_pid() % 4)::smallint, sum(d.delta), 1
    FROM (
      SELECT k.owner, k.facet, -1 AS delta
      FROM old_rows r JOIN new_rows x ON x.id = r.id, steward_trace_count_keys(r.account_id) k
      WHERE (r.account_id, r.prompt_name, r.model_config) IS DISTINCT FROM (x.account_id, x.prompt_name, x.model_config)
      UNION ALL
      SELECT k.owner, k.facet, 1
      FROM new_rows r JOIN old_rows x ON x.id = r.id, steward_trace_count_keys(r.account_id) k
      WHERE (r.account_id, r.prompt_name, r.model_config) IS DISTINCT FROM (x.account_id, x.prompt_name, x.model_config)
    ) d
    GROUP BY d.owner, d.facet
    HAVING sum(d.delta) <> 0 OR d.facet = ''
    ORDER BY d.owner, d.facet
    ON CONFLICT (list, owner, facet, slot) DO UPDATE SET n = c.n + excluded.n, version = c.version + 1;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- TRUNCATE fires no delete trigger: the list's counters go to zero, their versions move on
-- (never back: a remembered page boundary must not match again).
CREATE OR REPLACE FUNCTION steward_list_counts_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_counts SET n = 0, version = version + 1 WHERE list = TG_ARGV[0];
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER memories_list_counts_insert AFTER INSERT ON memories REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_memories_list_counts();
--> statement-breakpoint
CREATE TRIGGER memories_list_counts_update AFTER UPDATE ON memories REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_memories_list_counts();
--> statement-breakpoint
CREATE TRIGGER memories_list_counts_delete AFTER DELETE ON memories REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_memories_list_counts();
--> statement-breakpoint
CREATE TRIGGER memories_list_counts_truncate AFTER TRUNCATE ON memories FOR EACH STATEMENT EXECUTE FUNCTION steward_list_counts_truncated('memories');
--> statement-breakpoint
CREATE TRIGGER contacts_list_counts_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_contacts_list_counts();
--> statement-breakpoint
CREATE TRIGGER contacts_list_counts_update AFTER UPDATE ON contacts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_contacts_list_counts();
--> statement-breakpoint
CREATE TRIGGER contacts_list_counts_delete AFTER DELETE ON contacts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_contacts_list_counts();
--> statement-breakpoint
CREATE TRIGGER contacts_list_counts_truncate AFTER TRUNCATE ON contacts FOR EACH STATEMENT EXECUTE FUNCTION steward_list_counts_truncated('contacts');
--> statement-breakpoint
CREATE TRIGGER users_list_counts_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_users_list_counts();
--> statement-breakpoint
CREATE TRIGGER users_list_counts_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_users_list_counts();
--> statement-breakpoint
CREATE TRIGGER users_list_counts_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_users_list_counts();
--> statement-breakpoint
CREATE TRIGGER users_list_counts_truncate AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION steward_list_counts_truncated('users');
--> statement-breakpoint
CREATE TRIGGER traces_list_counts_insert AFTER INSERT ON traces REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_traces_list_counts();
--> statement-breakpoint
CREATE TRIGGER traces_list_counts_update AFTER UPDATE ON traces REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_traces_list_counts();
--> statement-breakpoint
CREATE TRIGGER traces_list_counts_delete AFTER DELETE ON traces REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION steward_traces_list_counts();
--> statement-breakpoint
CREATE TRIGGER traces_list_counts_truncate AFTER TRUNCATE ON traces FOR EACH STATEMENT EXECUTE FUNCTION steward_list_counts_truncated('traces');
--> statement-breakpoint
-- Rows that exist already, counted once the triggers hold the tables (CREATE TRIGGER locks out
-- writers until this migration commits, so nothing is counted twice or missed).
INSERT INTO list_counts (list, owner, facet, slot, n, version)
SELECT 'memories', k.owner, k.facet, 0, count(*), 1
FROM memories r, steward_memory_count_keys(r.account_id, r.user_id, r.team_id, r.scope, r.internal, r.kind, r.resource_type, r.tags) k
GROUP BY k.owner, k.facet;
--> statement-breakpoint
INSERT INTO list_counts (list, owner, facet, slot, n, version)
SELECT 'contacts', k.owner, k.facet, 0, count(*), 1
FROM contacts r, steward_contact_count_keys(r.account_id, r.user_id, r.status, r.scope, r.source, r.tags) k
GROUP BY k.owner, k.facet;
--> statement-breakpoint
INSERT INTO list_counts (list, owner, facet, slot, n, version)
SELECT 'users', k.owner, k.facet, 0, count(*), 1
FROM users r, steward_user_count_keys(r.account_id, r.organization_id, r.status) k
GROUP BY k.owner, k.facet;
--> statement-breakpoint
INSERT INTO list_counts (list, owner, facet, slot, n, version)
SELECT 'traces', 'a:' || account_id, '', 0, count(*), 1 FROM traces GROUP BY account_id;
