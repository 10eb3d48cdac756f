import type { ReactNode } from 'react';
import { readOrNotFound, requireSignedIn } from '@/app/_lib/server-caller';
import { HostedFrame } from '@/app/_ui/layout';
import { Sectioned } from '@/app/_ui/nav-links';
import { OrgNav } from './org-nav';

/**
 * What every organization page reads first: the session (or sign-in), the organization (404 for
 * someone else's), and what the session may do there by the service's own rule.
 */
export async function orgPage(orgId: string, path: string) {
  const signed = await requireSignedIn(`/organizations/${orgId}${path}`);
  const { organization } = await readOrNotFound(signed.api.organizations.get({ orgId }));
  const { canAdmin } = await readOrNotFound(signed.api.organizations.permissions({ orgId }));
  return { ...signed, organization, isAdmin: canAdmin };
}

/** An organization page: the frame with the organization's name, its sections beside the content. */
export function OrgFrame({ me, orgId, name, isAdmin, title, description, children }: { me: Parameters<typeof HostedFrame>[0]['me']; orgId: string; name: string; isAdmin: boolean; title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <HostedFrame me={me} title={`${name}: ${title}`} width="wide" description={description}>
      <Sectioned nav={<OrgNav orgId={orgId} isAdmin={isAdmin} />}>
        {!isAdmin && <p className="mb-4 text-muted">Only organization admins can change these settings.</p>}
        {children}
      </Sectioned>
    </HostedFrame>
  );
}
