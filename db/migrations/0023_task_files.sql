CREATE TABLE "task_files" (
	"activity_id" text NOT NULL,
	"task_id" text NOT NULL,
	"file_id" text NOT NULL,
	"account_id" text NOT NULL,
	CONSTRAINT "task_files_activity_id_file_id_pk" PRIMARY KEY("activity_id","file_id")
);
--> statement-breakpoint
ALTER TABLE "task_files" ADD CONSTRAINT "task_files_activity_id_task_activities_id_fk" FOREIGN KEY ("activity_id") REFERENCES "public"."task_activities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_files" ADD CONSTRAINT "task_files_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_files" ADD CONSTRAINT "task_files_file_id_drive_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."drive_files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "task_files_file" ON "task_files" USING btree ("file_id","task_id");--> statement-breakpoint
-- The files a task carries (task_files) come from its activities, written here so that every path
-- recording an activity with files fills the table. Only files of the task's owner, in the task's
-- account, are kept: a task shares what its owner attached, and an id that names no such file is
-- ignored rather than failing the activity.
CREATE OR REPLACE FUNCTION steward_task_activity_files() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM task_files WHERE activity_id = NEW.id;
  END IF;
  IF jsonb_typeof(NEW.file_ids) = 'array' THEN
    INSERT INTO task_files (activity_id, task_id, file_id, account_id)
    SELECT DISTINCT NEW.id, NEW.task_id, f.id, t.account_id
    FROM jsonb_array_elements_text(NEW.file_ids) AS e(file_id)
    JOIN drive_files f ON f.id = e.file_id
    JOIN tasks t ON t.id = NEW.task_id AND t.account_id = f.account_id AND t.user_id = f.user_id
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER task_activities_files_insert
  AFTER INSERT ON task_activities
  FOR EACH ROW WHEN (NEW.file_ids <> '[]'::jsonb) EXECUTE FUNCTION steward_task_activity_files();
--> statement-breakpoint
CREATE TRIGGER task_activities_files_update
  AFTER UPDATE OF file_ids ON task_activities
  FOR EACH ROW WHEN (OLD.file_ids IS DISTINCT FROM NEW.file_ids) EXECUTE FUNCTION steward_task_activity_files();
--> statement-breakpoint
-- Activities recorded before this migration.
INSERT INTO task_files (activity_id, task_id, file_id, account_id)
SELECT DISTINCT a.id, a.task_id, f.id, t.account_id
FROM task_activities a
CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(a.file_ids) = 'array' THEN a.file_ids ELSE '[]'::jsonb END) AS e(file_id)
JOIN drive_files f ON f.id = e.file_id
JOIN tasks t ON t.id = a.task_id AND t.account_id = f.account_id AND t.user_id = f.user_id
ON CONFLICT DO NOTHING;
