-- Slack behind the channel port (issue 41): approval cards posted before the move name their place
-- as {provider, appId, teamId, channel, ts}; the port names it as the connection (the app), the
-- thread and the message (server/channels/slack/transform.ts): the thread names the person the
-- card was posted to (their member id, from the identity linked through that app), the message
-- its ts and the DM it is in. Re-written here so a press on such a card still matches its post,
-- and the card is still closed when its cart moves on. Data only.
UPDATE channel_approval_posts AS p
SET ref = jsonb_build_object(
  'provider', 'slack',
  'connectionId', p.ref->>'appId',
  'thread', 'slack:' || (p.ref->>'appId') || ':' || (p.ref->>'teamId') || ':' || i.external_user_id,
  'messageRef', 'slack:' || (p.ref->>'appId') || ':' || (p.ref->>'teamId') || ':' || i.external_user_id || '#' || (p.ref->>'ts') || '@' || (p.ref->>'channel')
)
FROM channel_identities AS i
WHERE p.provider = 'slack' AND p.ref ? 'appId' AND p.ref ? 'ts' AND (p.ref->>'channel') LIKE 'D%'
  AND i.user_id = p.user_id AND i.provider = 'slack' AND i.app_id = p.ref->>'appId' AND i.workspace_id = p.ref->>'teamId';
--> statement-breakpoint
-- A card whose person is no longer linked through its app: named by its conversation, so it can still be closed.
UPDATE channel_approval_posts
SET ref = jsonb_build_object(
  'provider', 'slack',
  'connectionId', ref->>'appId',
  'thread', 'slack:' || (ref->>'appId') || ':' || (ref->>'teamId') || ':' || (ref->>'channel'),
  'messageRef', 'slack:' || (ref->>'appId') || ':' || (ref->>'teamId') || ':' || (ref->>'channel') || '#' || (ref->>'ts')
)
WHERE provider = 'slack' AND ref ? 'appId' AND ref ? 'ts';
