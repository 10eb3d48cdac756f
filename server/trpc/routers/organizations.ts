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

const Org = z.object({ orgId: z.string().min(1) });

/** Organization settings in the hosted app: the same services (and rules) as /organizations/{orgId}/... */
export const organizationsRouter = router({
  get: userProcedure.input(Org).query(({ ctx, input }) => getOrganization(ctx.db, ctx.actor, input.orgId)),
  /** What the session may do here, by the services' own rule (the page shows admin panels from it). */
  permissions: userProcedure.input(Org).query(({ ctx, input }) => organizationPermissions(ctx.db, ctx.actor, input.orgId)),
  update: userProcedure.input(Org.extend({ patch: UpdateOrganizationBody })).mutation(({ ctx, input }) => updateOrganization(ctx.db, ctx.actor, input.orgId, input.patch)),

  members: userProcedure.input(Org.extend({ query: ListMembersQuery.prefault({}) })).query(({ ctx, input }) => listMembers(ctx.db, ctx.actor, input.orgId, input.query)),
  addMember: userProcedure.input(Org.extend({ member: AddMemberBody })).mutation(({ ctx, input }) => addMember(ctx.db, ctx.actor, input.orgId, input.member)),
  removeMember: userProcedure.input(Org.extend({ userId: z.string().min(1) })).mutation(({ ctx, input }) => removeMember(ctx.db, ctx.actor, input.orgId, input.userId)),
  setRole: userProcedure
    .input(Org.extend({ userId: z.string().min(1), role: UpdateUserBody.shape.organizationRole.unwrap() }))
    .mutation(({ ctx, input }) => setOrganizationRole(ctx.db, ctx.actor, input.orgId, input.userId, input.role)),

  domains: userProcedure.input(Org).query(({ ctx, input }) => listDomains(ctx.db, ctx.actor, input.orgId)),
  addDomain: userProcedure.input(Org.extend({ domain: AddDomainBody })).mutation(({ ctx, input }) => addDomain(ctx.db, ctx.actor, input.orgId, input.domain)),
  verifyDomain: userProcedure.input(Org.extend({ domainId: z.string().min(1) })).mutation(({ ctx, input }) => verifyDomain(ctx.db, ctx.actor, input.orgId, input.domainId)),
  updateDomain: userProcedure
    .input(Org.extend({ domainId: z.string().min(1), patch: UpdateDomainBody }))
    .mutation(({ ctx, input }) => updateDomain(ctx.db, ctx.actor, input.orgId, input.domainId, input.patch)),

  /** The SSO settings plus the service-provider values to register in the IdP (on this hosted domain). */
  sso: userProcedure.input(Org).query(async ({ ctx, input }) => {
    const { organization } = await getOrganization(ctx.db, ctx.actor, input.orgId);
    return { sso: organization.sso ?? null, scim: organization.scim ?? null, sp: spValues(ctx.site.origin) };
  }),
  putSso: userProcedure.input(Org.extend({ sso: SsoBody })).mutation(({ ctx, input }) => putSso(ctx.db, ctx.actor, input.orgId, input.sso)),
  deleteSso: userProcedure.input(Org).mutation(({ ctx, input }) => deleteSso(ctx.db, ctx.actor, input.orgId)),
  mintScimToken: userProcedure.input(Org).mutation(({ ctx, input }) => mintScimToken(ctx.db, ctx.actor, input.orgId, ctx.site.origin)),

  /** The signed-in person's pending invitations (to one of their verified emails), and their answer. */
  invitations: userProcedure.query(({ ctx }) => listMyInvitations(ctx.db, ctx.actor)),
  acceptInvitation: userProcedure.input(InvitationParams).mutation(({ ctx, input }) => acceptInvitation(ctx.db, ctx.actor, input.invitationId)),
  declineInvitation: userProcedure.input(InvitationParams).mutation(({ ctx, input }) => declineInvitation(ctx.db, ctx.actor, input.invitationId)),
});
