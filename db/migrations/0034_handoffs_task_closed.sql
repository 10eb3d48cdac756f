-- A task that closes (any ended status: server/tasks/ended.ts) closes its open handoffs with
-- close_reason task_closed, and gives the browser back to the assistant if one of them held it.
-- A trigger, so every path that ends a task (mark-done, the run finishing, PUT archived...) does it.
CREATE FUNCTION handoffs_close_for_ended_task() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IN ('completed', 'done_user_marked', 'handled_by_other', 'error', 'abandoned', 'archived') THEN
    UPDATE workspace_controls c
       SET operator = 'agent', handoff_id = NULL, generation = c.generation + 1, updated_at = now()
     WHERE c.handoff_id IN (SELECT h.id FROM handoffs h WHERE h.task_id = NEW.id AND h.closed_at IS NULL);
    UPDATE handoffs
       SET status = 'closed', close_reason = 'task_closed', closed_at = now(), updated_at = now()
     WHERE task_id = NEW.id AND closed_at IS NULL;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tasks_close_handoffs AFTER UPDATE OF status ON tasks
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION handoffs_close_for_ended_task();
