'use client';
import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { useAction } from '@/app/_ui/action';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import type { AppRouter } from '@/server/trpc/app-router';

/** The person's own app for the assistant as channels.slackApp shows it (no secret), or null before they create one. */
export type MySlackApp = inferRouterOutputs<AppRouter>['channels']['slackApp']['slackApp'];

/**
 * Setting up an assistant's own Slack app: create it (its manifest opens Slack's "create app"
 * page), paste the three values Slack's Basic Information page shows (the secrets are sealed and
 * never shown again), then install it in the workspace.
 */
export function SlackAppForm({ assistantId, name, app }: { assistantId: string; name: string; app: MySlackApp }) {
  const { run, pending, status } = useAction();
  const [clientId, setClientId] = useState(app?.credentials.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [signingSecret, setSigningSecret] = useState('');
  const [slackAppId, setSlackAppId] = useState('');
  const p = `slack-${assistantId}`;
  if (!app) {
    return (
      <div>
        <button className={s.secondary} type="button" disabled={pending} onClick={() => run(() => trpc.channels.createSlackApp.mutate({ assistantId, botDisplayName: name.trim().slice(0, 80) || 'Assistant' }), 'Created: open Slack to create the app from its manifest')}>
          Create a Slack app for {name}
        </button>
        {status}
      </div>
    );
  }
  return (
    <div>
      {app.createAppUrl && (
        <p>
          1. <a href={app.createAppUrl} target="_blank" rel="noreferrer">Create the app in Slack from its manifest</a>. 2. Copy its credentials below. 3. Install it.
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run(() => trpc.channels.saveSlackAppCredentials.mutate({ appId: app.id, clientId, clientSecret, signingSecret, ...(slackAppId ? { slackAppId } : {}) }), 'Saved: the app is active');
          setClientSecret('');
          setSigningSecret('');
        }}
      >
        <div className={s.row}>
          <Field id={`${p}-client-id`} label="Client ID">
            <input id={`${p}-client-id`} value={clientId} onChange={(e) => setClientId(e.target.value)} required autoComplete="off" />
          </Field>
          <Field id={`${p}-app-id`} label="App ID (optional)">
            <input id={`${p}-app-id`} value={slackAppId} onChange={(e) => setSlackAppId(e.target.value)} autoComplete="off" />
          </Field>
        </div>
        <div className={s.row}>
          <Field id={`${p}-client-secret`} label="Client Secret" hint={app.status === 'active' ? 'Stored; enter it again only to replace it.' : undefined}>
            <input id={`${p}-client-secret`} type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} required autoComplete="off" />
          </Field>
          <Field id={`${p}-signing-secret`} label="Signing Secret">
            <input id={`${p}-signing-secret`} type="password" value={signingSecret} onChange={(e) => setSigningSecret(e.target.value)} required autoComplete="off" />
          </Field>
        </div>
        <button className={s.button} type="submit" disabled={pending}>
          {app.status === 'active' ? 'Replace the credentials' : 'Save the credentials'}
        </button>
      </form>
      {app.status === 'active' && (
        <p>
          <button
            className={s.secondary}
            type="button"
            disabled={pending}
            onClick={() => run(() => trpc.channels.slackInstallLink.mutate({ assistantId }), 'Opening Slack…', (r) => window.location.assign(r.url))}
          >
            {app.installations.length ? 'Install in another workspace' : 'Install in your Slack workspace'}
          </button>
        </p>
      )}
      {status}
    </div>
  );
}
