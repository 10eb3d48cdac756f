import { defineEndpoint } from '@/server/http/endpoint';
import { AuditEventsQuery, AuditEventsResponse } from './contracts';
import { auditScopeOf, listAuditEvents } from './query';

const tags = ['Audit'];

export const auditEndpoints = [
  defineEndpoint({
    tags,
    auth: 'any',
    method: 'GET',
    path: '/audit-events',
    summary: 'Security-relevant actions, newest first: the account (account key) or one organization (its admin or key)',
    description:
      'Sign-ins, keys created and revoked, roles, SSO, SCIM tokens, domains, policy and approval locks, the kill switch, approvals and releases, webhooks and budgets. ' +
      'Filters combine; `cursor` continues after the previous page. Each event is also delivered as the webhook event `audit.event`.',
    query: AuditEventsQuery,
    response: AuditEventsResponse,
    errors: [400, 403],
    handle: async ({ db, actor, query }) => listAuditEvents(db, auditScopeOf(actor), query),
  }),
];
