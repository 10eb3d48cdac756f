import { defineEndpoint } from '@/server/http/endpoint';
import { OrgParams } from '@/server/organizations/contracts';
import { TierCapabilitiesBody, TierCapabilitiesResponse } from './capability-contracts';
import { getAccountCapabilities, getOrganizationCapabilities, patchAccountCapabilities, patchOrganizationCapabilities } from './capability-switches';

const tags = ['Capabilities'];
const SUMMARY_RULE = 'on, off or null (inherit) per switch, with `<name>Locked` pinning it for the tiers below; a lock needs a value (400)';

/** Capability switches of the account and organization tiers (spec 1; `slackWorkspaceApps` off makes workspace Slack apps 403 `slack_not_allowed`). */
export const capabilityEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/settings/capabilities',
    summary: 'The account’s capability switches and what they resolve to',
    tags,
    auth: 'account',
    response: TierCapabilitiesResponse,
    handle: ({ db, actor }) => getAccountCapabilities(db, actor),
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/settings/capabilities',
    summary: `Change the account’s capability switches: ${SUMMARY_RULE}`,
    tags,
    auth: 'account',
    body: TierCapabilitiesBody,
    response: TierCapabilitiesResponse,
    errors: [400],
    handle: ({ db, actor, body }) => patchAccountCapabilities(db, actor, body.capabilities),
  }),
  defineEndpoint({
    method: 'GET',
    path: '/organizations/{orgId}/settings/capabilities',
    summary: 'The organization’s capability switches, what the account locked, and what they resolve to (organization admins and keys)',
    tags,
    auth: 'any',
    params: OrgParams,
    response: TierCapabilitiesResponse,
    errors: [403, 404],
    handle: ({ db, actor, params }) => getOrganizationCapabilities(db, actor, params.orgId),
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/organizations/{orgId}/settings/capabilities',
    summary: `Change the organization’s capability switches: ${SUMMARY_RULE}; a switch the account locked is 403`,
    tags,
    auth: 'any',
    params: OrgParams,
    body: TierCapabilitiesBody,
    response: TierCapabilitiesResponse,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => patchOrganizationCapabilities(db, actor, params.orgId, body.capabilities),
  }),
];
