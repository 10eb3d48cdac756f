import { serverCaller } from '@/app/_lib/server-caller';
import { SlackAppForm, type MySlackApp } from './slack-app-form';

/** A refusal (403/404) of a read, as readOrNotFound tells it, rather than a failure. */
const refused = (e: unknown) => {
  const status = (e as { cause?: { status?: unknown } } | null)?.cause?.status;
  return status === 403 || status === 404;
};

/**
 * One assistant's own Slack app for the signed-in person (issue 33): create it, hand over its
 * credentials, install it. Reads channels.slackApp (never a secret); renders nothing for someone
 * not signed in or an assistant they cannot see. The services refuse what the person may not do
 * (an account-wide assistant, an organization that turned workspace apps off).
 */
export async function SlackAppSetup({ assistantId, name }: { assistantId: string; name: string }) {
  const { ctx, api } = await serverCaller();
  if (!ctx.actor?.user) return null;
  let app: MySlackApp;
  try {
    app = (await api.channels.slackApp({ assistantId })).slackApp;
  } catch (e) {
    if (refused(e)) return null;
    throw e;
  }
  return <SlackAppForm assistantId={assistantId} name={name} app={app} />;
}
