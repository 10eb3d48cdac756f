import type { AnyEndpoint } from '@/server/http/endpoint';
import { accessEndpoints } from '@/server/access/endpoints';
import { userEndpoints } from '@/server/users/endpoints';
import { documentEndpoints } from '@/server/http/document-endpoints';
import { opsEndpoints } from '@/server/http/ops-endpoints';
import { promptEndpoints } from '@/server/prompts/endpoints';
import { memoryEndpoints } from '@/server/memories/endpoints';
import { contactEndpoints } from '@/server/contacts/endpoints';
import { fileEndpoints } from '@/server/files/endpoints';
import { domainEndpoints, organizationEndpoints, ssoEndpoints } from '@/server/organizations/endpoints';
import { teamEndpoints } from '@/server/teams/endpoints';
import { teamJoinEndpoints } from '@/server/team-joins/endpoints';
import { identifierEndpoints } from '@/server/identifiers/endpoints';
import { identifierVerificationEndpoints } from '@/server/identifiers/verification-endpoints';
import { assistantEndpoints } from '@/server/assistants/endpoints';
import { policyEndpoints } from '@/server/policy/endpoints';
import { channelAdapters } from '@/server/channels/adapters';
import { channelEndpoints } from '@/server/channels/endpoints';
import { githubEndpoints } from '@/server/channels/github/endpoints';
import { scimEndpoints } from '@/server/scim/endpoints';
import { samlEndpoints } from '@/server/hosted/saml-metadata';
import { signInEndpoints } from '@/server/sign-in/endpoints';
import { taskEndpoints } from '@/server/tasks/endpoints';
import { approvalsEndpoints } from '@/server/approvals/endpoints';
import { webhookEndpointsApi } from '@/server/webhooks/endpoints';
import { chatEndpoints } from '@/server/chats/endpoints';
import { handoffEndpoints } from '@/server/workspace/handoff-endpoints';
import { workspaceBrowserEndpoints } from '@/server/workspace/browser-endpoints';
import { segmentEndpoints } from '@/server/policy/segments-endpoints';
import { mcpSkillEndpoints } from '@/server/workflows/mcp/endpoints';
import { skillEndpoints } from '@/server/workflows/endpoints';
import { workflowTriggerEndpoints } from '@/server/workflows/trigger-endpoints';
import { budgetEndpoints } from '@/server/budgets/endpoints';
import { mailboxEndpoints } from '@/server/mailboxes/endpoints';
import { calendarOAuthEndpoints } from '@/server/calendars/oauth-endpoints';
import { calendarEndpoints } from '@/server/calendars/endpoints';
import { calendarPushEndpoints } from '@/server/calendars/push-endpoints';
import { auditEndpoints } from '@/server/audit/endpoints';
import { noticeEndpoints } from '@/server/notices/endpoints';
import { portWebhookEndpoints } from '@/server/messaging/channel-endpoints';
import { textWebhookEndpoints } from '@/server/messaging/texts-webhooks';
import { identifierHooks } from '@/server/channels/imessage/number-lookup';
import { voiceEndpoints } from '@/server/channels/voice-endpoints';
import { voiceWebhookEndpoints } from '@/server/messaging/voice-webhooks';
import { chatTurnEndpoints } from '@/server/chats/turn-endpoints';
import { withTurnSummaries } from '@/server/chats/turn-replay';

/** Every public endpoint, one list per area. Route files and the lean server serve exactly these. */
export const endpoints: AnyEndpoint[] = [
  ...documentEndpoints(() => endpoints),
  ...opsEndpoints,
  ...accessEndpoints,
  ...userEndpoints,
  ...organizationEndpoints,
  ...domainEndpoints,
  ...ssoEndpoints,
  ...teamEndpoints,
  ...teamJoinEndpoints,
  ...identifierEndpoints(identifierHooks),
  ...identifierVerificationEndpoints(identifierHooks),
  ...assistantEndpoints,
  ...policyEndpoints,
  ...channelEndpoints,
  ...channelAdapters.flatMap((a) => a.endpoints ?? []),
  ...githubEndpoints,
  ...scimEndpoints,
  ...samlEndpoints,
  ...signInEndpoints,
  ...promptEndpoints,
  ...memoryEndpoints,
  ...contactEndpoints,
  ...fileEndpoints,
  ...taskEndpoints,
  ...approvalsEndpoints,
  ...webhookEndpointsApi,
  ...chatEndpoints,
  ...handoffEndpoints,
  ...workspaceBrowserEndpoints,
  ...segmentEndpoints,
  ...skillEndpoints,
  ...workflowTriggerEndpoints,
  ...mcpSkillEndpoints,
  ...budgetEndpoints,
  ...mailboxEndpoints,
  ...calendarOAuthEndpoints,
  ...calendarEndpoints,
  // A verified calendar push asks the engine for that calendar's sync (inngest/functions/calendar-sync.ts);
  // the Inngest client loads on first use (it reads the executor's keys when it loads).
  ...calendarPushEndpoints({
    async requestSync({ connectionId, calendarId, id }) {
      const [{ inngest }, { calendarEvents }] = await Promise.all([import('@/inngest/client'), import('@/inngest/functions/calendar-sync')]);
      await inngest.send(calendarEvents.calendarSyncRequested.create({ connectionId, calendarId }, { id }));
    },
  }),
  ...withTurnSummaries(chatTurnEndpoints),
  ...auditEndpoints,
  ...noticeEndpoints,
  ...portWebhookEndpoints,
  ...textWebhookEndpoints,
  ...voiceEndpoints,
  ...voiceWebhookEndpoints,
];
