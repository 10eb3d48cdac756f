import { defineEndpoint } from '@/server/http/endpoint';
import { SlackAppEnvelope, SlackAppParams, SlackCredentialsBody } from './contracts';
import { getSlackApp, setSlackAppCredentials } from './credentials';

const tags = ['Channels'];

/** An assistant's own Slack app after the manifest: its status, installations, and the credentials its creator hands over. */
export const slackAppEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/slack-apps/{appId}',
    summary: 'An assistant’s Slack app: status, where its credentials come from (never the secrets), installed workspaces',
    tags,
    auth: 'any',
    params: SlackAppParams,
    response: SlackAppEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getSlackApp(db, actor, params.appId),
  }),
  defineEndpoint({
    method: 'PUT',
    path: '/slack-apps/{appId}/credentials',
    summary: 'Hand Steward the app’s Client ID, Client Secret and Signing Secret from Slack’s Basic Information page: sealed, never returned; the app becomes active',
    description:
      'By the user whose workspace app it is, or an account-wide credential. The marketplace app uses the deployment’s SLACK_* credentials (400 `marketplace_uses_deployment_credentials`). Sending new credentials replaces the old ones (rotation).',
    tags,
    auth: 'any',
    params: SlackAppParams,
    body: SlackCredentialsBody,
    response: SlackAppEnvelope,
    errors: [400, 404],
    handle: ({ db, actor, params, body }) => setSlackAppCredentials(db, actor, params.appId, body),
  }),
];
