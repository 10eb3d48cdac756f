import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/app-router';
import { CapabilitiesForm, type SwitchRow } from './capabilities-form';

/** What organizations.capabilities answers: this tier's values and locks, what the account locked, what applies. */
export type CapabilitiesView = inferRouterOutputs<AppRouter>['organizations']['capabilities'];

const LABELS: Record<string, { label: string; hint: string }> = {
  slackWorkspaceApps: { label: 'Workspace Slack apps', hint: 'Members may create a Slack app of their own for their assistant.' },
  browserAutomation: { label: 'Browser automation', hint: 'Assistants may use the workspace browser.' },
  workspaceHandoff: { label: 'Browser handoffs', hint: 'Assistants may hand the browser to the person (sign-ins, codes).' },
  workspaceCli: { label: 'Workspace shell', hint: 'Assistants may run commands in the person’s workspace.' },
  mcpServers: { label: 'MCP servers', hint: 'Members may connect MCP servers as skills.' },
};

/**
 * The organization's capability switches (issue 33), for its admins: each switch on, off or
 * inherited from the account, and lockable for the organization's teams; a switch the account
 * locked is shown, not editable. The page reads them through organizations.capabilities (the
 * service of GET /api/organizations/{orgId}/settings/capabilities) and passes them here; the
 * switches are the ones the service resolves, in its order.
 */
export function CapabilitiesPanel({ orgId, view }: { orgId: string; view: CapabilitiesView }) {
  const rows: SwitchRow[] = Object.entries(view.effective.capabilities).map(([name, effective]) => ({
    name,
    label: LABELS[name]?.label ?? name,
    hint: LABELS[name]?.hint ?? '',
    value: (view.capabilities[name] as 'on' | 'off' | null | undefined) ?? null,
    locked: view.capabilities[`${name}Locked`] === true,
    lockedAbove: view.lockedAbove[name]?.value ?? null,
    effective,
  }));
  return (
    <>
      <p>What the organization’s assistants and members may use. Teams can only turn a switch off, unless you lock it.</p>
      <CapabilitiesForm orgId={orgId} rows={rows} />
    </>
  );
}
