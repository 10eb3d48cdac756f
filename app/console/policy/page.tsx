import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { TIER_SWITCHES } from '@/server/policy/capability-contracts';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { ACTION_LABELS, MODE_LABELS, SWITCH_LABELS } from './labels';
import { CapabilitiesForm, ClearLock, LockForm } from './policy-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Locks and capabilities · Console · Steward' };

/**
 * The policy ceiling (spec 1: console settings bound everything below): capability switches of
 * the account, and approval locks on action types for the account or one organization. A lock is
 * a floor members cannot loosen; a locked switch pins its value for every organization and team.
 */
export default async function ConsolePolicy() {
  const { api, canChange } = await consoleSession('/console/policy');
  const [caps, locks, directory] = await Promise.all([api.console.settings.capabilities(), api.console.settings.locks(), api.console.directory()]);
  const switches = TIER_SWITCHES.map((name) => ({
    name,
    label: SWITCH_LABELS[name] ?? name,
    value: (caps.capabilities[name] as 'on' | 'off' | null) ?? null,
    locked: caps.capabilities[`${name}Locked`] === true,
    effective: caps.effective.capabilities[name],
  }));
  return (
    <>
      <PageHead title="Locks and capabilities" description="What the account sets here is the ceiling for every organization, team and user below it." />
      <Section id="capabilities" title="Capability switches" bare>
        {canChange ? (
          <CapabilitiesForm switches={switches} />
        ) : (
          <Table label="Capability switches" head={['Capability', 'Account setting', 'In force']}>
            {switches.map((s) => (
              <tr key={s.name}>
                <td>{s.label}</td>
                <td>
                  {s.value === null ? 'Inherit' : s.value === 'on' ? 'On' : 'Off'}
                  {s.locked ? ' (locked)' : ''}
                </td>
                <td>
                  <Badge tone={s.effective === 'on' ? 'ok' : 'danger'}>{s.effective === 'on' ? 'On' : 'Off'}</Badge>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Section>
      <Section id="locks" title="Approval locks" description="A lock fixes how an action is approved; members can tighten it, never loosen it." bare>
        {locks.locks.length === 0 ? (
          <Empty title="No lock">Each user’s own autonomy settings decide which actions wait for their approval.</Empty>
        ) : (
          <Table label="Approval locks" head={['Where', 'Action', 'Locked to', ...(canChange ? ['Actions'] : [])]}>
            {locks.locks.map((l) => (
              <tr key={`${l.organizationId ?? 'account'}-${l.actionType}`}>
                <td>{l.level === 'account' ? 'Whole account' : (l.organizationName ?? l.organizationId)}</td>
                <td>{ACTION_LABELS[l.actionType] ?? l.actionType}</td>
                <td>
                  {MODE_LABELS[l.mode] ?? l.mode}
                  {l.mode === 'time-boxed' && l.timeBoxedWindowMin ? ` (${l.timeBoxedWindowMin} min)` : ''}
                </td>
                {canChange && (
                  <td>
                    <ClearLock organizationId={l.organizationId} actionType={l.actionType} label={ACTION_LABELS[l.actionType] ?? l.actionType} />
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
      </Section>
      {canChange && (
        <Section id="new-lock" title="Add or change a lock">
          <LockForm
            actionTypes={locks.actionTypes.map((a) => ({ value: a, label: ACTION_LABELS[a] ?? a }))}
            modes={locks.modes.map((m) => ({ value: m, label: MODE_LABELS[m] ?? m }))}
            organizations={directory.organizations}
          />
        </Section>
      )}
    </>
  );
}
