import { z } from 'zod';
import { spValues } from '@/server/hosted/saml-metadata';
import { organizationPermissions } from '@/server/organizations/access';
import { AddMemberBody, InvitationParams, ListMembersQuery, UpdateOrganizationBody } from '@/server/organizations/contracts';
import { addDomain, listDomains, updateDomain, verifyDomain } from '@/server/organizations/domains';
import { AddDomainBody, UpdateDomainBody } from '@/server/organizations/domains-contracts';
import { acceptInvitation, declineInvitation, listMyInvitations } from '@/server/organizations/invitations';
import { addMember, removeMember } from '@/server/organizations/members';
import { getOrganization, listMembers, updateOrganization } from '@/server/organizations/service';
import { deleteSso, putSso } from '@/server/organizations/sso';
import { SsoBody } from '@/server/organizations/sso-contracts';
import { mintScimToken } from '@/server/scim/token';
import { UpdateUserBody } from '@/server/users/contracts';
import { setOrganizationRole } from '@/server/users/service';
import { router, userProcedure } from '../init';
import { administeredOrganization } from '@/server/access/actor';
import { createApiKey, listApiKeys, revokeApiKey } from '@/server/access/api-keys';
import { CreateApiKeyBody } from '@/server/access/contracts';
import { forbidden } from '@/server/http/errors';
import { PageQuery } from '@/server/http/pagination';
import { AuditEventsQuery } from '@/server/audit/contracts';
import { listAuditEvents, organizationAuditScope } from '@/server/audit/query';
import { noteRequest } from '@/server/audit/request-meta';
import { TierCapabilitiesPatch } from '@/server/policy/capability-contracts';
import { getOrganizationCapabilities, patchOrganizationCapabilities } from '@/server/policy/capability-switches';

const Org = z.object({ orgId: z.string().min(1) });

/**
 * Changes made here are audited like the REST API's: the session's address is noted on its actor
 * (server/audit/request-meta.ts), so the events the services record say where the change came from.
 */
const changing = userProcedure.use(({ ctx, next }) => {
  noteRequest(ctx.actor, { ip: ctx.clientIp, userAgent: null, requestId: null });
  return next();
});

/** The audit page's query: the API's filters, one page of at most 100 events. */
const AuditPage = Org.extend({
  action: AuditEventsQuery.shape.action,
  cursor: AuditEventsQuery.shape.cursor,
  limit: z.number().int().min(1).max(100).default(50),
});

/** Organization settings in the hosted app: the same services (and rules) as /organizations/{orgId}/... */
export const organizationsRouter = router({
  get: userProcedure.input(Org).query(({ ctx, input }) => getOrganization(ctx.db, ctx.actor, input.orgId)),
  /** What the session may do here, by the services' own rule (the page shows admin panels from it). */
  permissions: userProcedure.input(Org).query(({ ctx, input }) => organizationPermissions(ctx.db, ctx.actor, input.orgId)),
  update: changing.input(Org.extend({ patch: UpdateOrganizationBody })).mutation(({ ctx, input }) => updateOrganization(ctx.db, ctx.actor, input.orgId, input.patch)),

  members: userProcedure.input(Org.extend({ query: ListMembersQuery.prefault({}) })).query(({ ctx, input }) => listMembers(ctx.db, ctx.actor, input.orgId, input.query)),
  addMember: changing.input(Org.extend({ member: AddMemberBody })).mutation(({ ctx, input }) => addMember(ctx.db, ctx.actor, input.orgId, input.member)),
  removeMember: changing.input(Org.extend({ userId: z.string().min(1) })).mutation(({ ctx, input }) => removeMember(ctx.db, ctx.actor, input.orgId, input.userId)),
  setRole: changing
    .input(Org.extend({ userId: z.string().min(1), role: UpdateUserBody.shape.organizationRole.unwrap() }))
    .mutation(({ ctx, input }) => setOrganizationRole(ctx.db, ctx.actor, input.orgId, input.userId, input.role)),

  domains: userProcedure.input(Org).query(({ ctx, input }) => listDomains(ctx.db, ctx.actor, input.orgId)),
  addDomain: changing.input(Org.extend({ domain: AddDomainBody })).mutation(({ ctx, input }) => addDomain(ctx.db, ctx.actor, input.orgId, input.domain)),
  verifyDomain: changing.input(Org.extend({ domainId: z.string().min(1) })).mutation(({ ctx, input }) => verifyDomain(ctx.db, ctx.actor, input.orgId, input.domainId)),
  updateDomain: changing
    .input(Org.extend({ domainId: z.string().min(1), patch: UpdateDomainBody }))
    .mutation(({ ctx, input }) => updateDomain(ctx.db, ctx.actor, input.orgId, input.domainId, input.patch)),

  /** The SSO settings plus the service-provider values to register in the IdP (on this hosted domain). */
  sso: userProcedure.input(Org).query(async ({ ctx, input }) => {
    const { organization } = await getOrganization(ctx.db, ctx.actor, input.orgId);
    return { sso: organization.sso ?? null, scim: organization.scim ?? null, sp: spValues(ctx.site.origin) };
  }),
  putSso: changing.input(Org.extend({ sso: SsoBody })).mutation(({ ctx, input }) => putSso(ctx.db, ctx.actor, input.orgId, input.sso)),
  deleteSso: changing.input(Org).mutation(({ ctx, input }) => deleteSso(ctx.db, ctx.actor, input.orgId)),
  mintScimToken: changing.input(Org).mutation(({ ctx, input }) => mintScimToken(ctx.db, ctx.actor, input.orgId, ctx.site.origin)),

  /**
   * The organization's capability switches (GET/PATCH /organizations/{orgId}/settings/capabilities'
   * services): its own values and locks, what the account locked, and what they resolve to. Its
   * admins only (a plain member 403, another account's organization 404).
   */
  capabilities: userProcedure.input(Org).query(({ ctx, input }) => getOrganizationCapabilities(ctx.db, ctx.actor, input.orgId)),
  setCapabilities: changing
    .input(Org.extend({ capabilities: TierCapabilitiesPatch }))
    .mutation(({ ctx, input }) => patchOrganizationCapabilities(ctx.db, ctx.actor, input.orgId, input.capabilities)),

  /**
   * The organization's own API keys (acting for the organization, not a person): the api-keys
   * service of POST/GET/DELETE /api-keys, for the organization this session administers. The
   * service decides what the caller may reach; this only refuses a session that administers
   * another organization (or none), since an unscoped create would otherwise make a personal key.
   */
  keys: userProcedure.input(Org.extend({ query: PageQuery.prefault({}) })).query(({ ctx, input }) => {
    if (administeredOrganization(ctx.actor) !== input.orgId) throw forbidden('Organization keys are managed by the organization’s admins');
    return listApiKeys(ctx.db, ctx.actor, { ...input.query, resource: 'organization' });
  }),
  createKey: changing.input(Org.extend({ key: CreateApiKeyBody.omit({ userId: true }) })).mutation(({ ctx, input }) => {
    if (administeredOrganization(ctx.actor) !== input.orgId) throw forbidden('Organization keys are managed by the organization’s admins');
    return createApiKey(ctx.db, ctx.actor, input.key);
  }),
  revokeKey: changing.input(Org.extend({ keyId: z.string().min(1) })).mutation(({ ctx, input }) => {
    if (administeredOrganization(ctx.actor) !== input.orgId) throw forbidden('Organization keys are managed by the organization’s admins');
    return revokeApiKey(ctx.db, ctx.actor, input.keyId);
  }),

  /** The organization's audit log, newest first (admins of it only), with the API's action filter and cursor. */
  auditEvents: userProcedure
    .input(AuditPage)
    .query(({ ctx, input }) => listAuditEvents(ctx.db, organizationAuditScope(ctx.actor, input.orgId), { action: input.action, cursor: input.cursor, limit: input.limit })),

  /** The signed-in person's pending invitations (to one of their verified emails), and their answer. */
  invitations: userProcedure.query(({ ctx }) => listMyInvitations(ctx.db, ctx.actor)),
  acceptInvitation: userProcedure.input(InvitationParams).mutation(({ ctx, input }) => acceptInvitation(ctx.db, ctx.actor, input.invitationId)),
  declineInvitation: userProcedure.input(InvitationParams).mutation(({ ctx, input }) => declineInvitation(ctx.db, ctx.actor, input.invitationId)),
});
