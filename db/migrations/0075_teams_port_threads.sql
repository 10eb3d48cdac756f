-- Teams moved behind the channel port (issue 41): a Teams chat is keyed by the person's thread
-- (teams:u:<tenant>:<Entra object id>) instead of the conversation id, so each user's existing
-- Teams chat carries on under its new key rather than a second one starting.
UPDATE "chats" AS c
SET "thread_key" = 'teams:u:' || lower(tc."tenant_id") || ':' || lower(tc."aad_object_id")
FROM "teams_conversations" AS tc
WHERE c."platform" = 'teams'
  AND c."thread_key" = tc."conversation_id"
  AND c."user_id" = tc."user_id"
  AND NOT EXISTS (
    SELECT 1 FROM "chats" AS other
    WHERE other."assistant_id" = c."assistant_id" AND other."platform" = 'teams'
      AND other."thread_key" = 'teams:u:' || lower(tc."tenant_id") || ':' || lower(tc."aad_object_id")
  );
