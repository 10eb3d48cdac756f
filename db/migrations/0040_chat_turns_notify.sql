-- Streams of chat turns served by any process of this database wake when a turn's events are
-- written (server/chats/stream-hub.ts): one NOTIFY per turn and statement, `<turnId>:<newest seq>`.
CREATE OR REPLACE FUNCTION chat_turn_events_notify() RETURNS trigger AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT turn_id, max(seq) AS seq FROM new_events GROUP BY turn_id LOOP
    PERFORM pg_notify('chat_turn_events', r.turn_id || ':' || r.seq);
  END LOOP;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER chat_turn_events_notify
  AFTER INSERT ON chat_turn_events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION chat_turn_events_notify();
