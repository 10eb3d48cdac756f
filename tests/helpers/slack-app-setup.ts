import { expect } from 'vitest';
import { call } from './client';
import type { TestServer } from './server';
import type { SlackFake } from './slack-fake';

/*
 * An assistant's own Slack app, set up as its owner does it, against the loopback Slack: created
 * through the API, given the credentials Slack shows for it, installed through the OAuth flow a
 * browser walks (start with the user's key, the begin link, Slack's consent, the callback), and,
 * when asked, a person's identity linked through it. Shared by the Slack tests so each asserts
 * its own behaviour, not its own copy of the set-up.
 */

type Owner = { key: string; assistantId: string };
type Grant = Parameters<SlackFake['grant']>[0];

/** One run of the OAuth flow (install: `authorize`; a person's identity: `link`); what Slack was sent and the connection made. */
export async function slackOAuth(server: TestServer, slack: SlackFake, p: Owner, purpose: 'authorize' | 'link', grant: Grant) {
  const start = await fetch(`${server.baseUrl}/oauth/slack/assistant/${purpose}?assistantId=${p.assistantId}`, { headers: { Authorization: `Bearer ${p.key}` }, redirect: 'manual' });
  expect(start.status, await start.clone().text()).toBe(302);
  const opened = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  const toSlack = new URL(opened.headers.get('location')!);
  const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
  const done = await call(server, `/oauth/callback/slack?code=${slack.grant(grant)}&state=${encodeURIComponent(toSlack.searchParams.get('state')!)}`, { headers: { cookie } });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return { toSlack, connection: done.body.connection };
}

/**
 * The assistant's workspace app, active with its credentials and installed in `install.team`
 * (the installer, `install.authedUser`, is linked by the install); its webhooks and signing secret.
 */
export async function slackAppInstalled(server: TestServer, slack: SlackFake, p: Owner, install: Grant, botDisplayName = 'Ada') {
  const created = await call(server, `/assistants/${p.assistantId}/slack-apps`, { key: p.key, body: { kind: 'workspace', botDisplayName } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const appId = created.body.slackApp.id as string;
  const credentials = slack.createApp(appId);
  const put = await call(server, `/slack-apps/${appId}/credentials`, { method: 'PUT', key: p.key, body: credentials });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const installed = await slackOAuth(server, slack, p, 'authorize', install);
  return {
    appId,
    credentials,
    secret: credentials.signingSecret,
    eventsUrl: created.body.manifest.eventsUrl as string,
    interactivityUrl: created.body.manifest.manifestJson.settings.interactivity.request_url as string,
    toSlack: installed.toSlack,
  };
}
