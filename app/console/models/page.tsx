import { Section } from '@/app/_ui/field';
import { Fields, Table } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { DefaultTiersForm, ModelForm, UseDeploymentModel } from './model-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Models · Console · Steward' };

const SOURCE = { account: ['This account', 'accent'], deployment: ['Deployment default', 'plain'], none: ['Not configured', 'warn'] } as const;

/** The model behind each tier (medium is "Standard"), and the tiers chats and tasks use by default. */
export default async function ConsoleModels() {
  const { api, canChange } = await consoleSession('/console/models');
  const [models, defaults] = await Promise.all([api.console.settings.models(), api.console.settings.defaultTiers()]);
  const labels = Object.fromEntries(models.tiers.map((t) => [t.tier, t.label]));
  return (
    <>
      <PageHead title="Models" description="Each tier is served by a model. The account’s own setting wins over the deployment’s; a tier with neither is served by the nearest tier that has one." />
      <Section id="tiers" title="Model per tier" bare>
        <Table label="Model per tier" head={['Tier', 'Model', 'Set by', 'Endpoint', ...(canChange ? ['Actions'] : [])]}>
          {models.tiers.map((t) => (
            <tr key={t.tier}>
              <td className="font-medium">{t.label}</td>
              <td className="[overflow-wrap:anywhere]">{t.model ? <code>{t.model}</code> : '—'}</td>
              <td>
                <Badge tone={SOURCE[t.source][1]}>{SOURCE[t.source][0]}</Badge>
              </td>
              <td className="[overflow-wrap:anywhere]">
                {t.baseUrl ? (
                  <>
                    <code>{t.baseUrl}</code>
                    {t.ownKey ? ' (own key)' : ''}
                  </>
                ) : (
                  'The deployment’s'
                )}
              </td>
              {canChange && <td>{t.source === 'account' ? <UseDeploymentModel tier={t.tier} label={t.label} deploymentModel={t.deploymentModel} /> : '—'}</td>}
            </tr>
          ))}
        </Table>
      </Section>
      {canChange && (
        <Section id="set-model" title="Set a tier’s model" description="On the deployment’s endpoint, or on the account’s own (its key is kept sealed and never shown again).">
          <ModelForm tiers={models.tiers.map((t) => ({ tier: t.tier, label: t.label }))} />
        </Section>
      )}
      <Section id="defaults" title="Default tiers" description="The tier a new chat or task uses when neither it nor its organization names one (“Standard” unless set here).">
        {canChange ? (
          <DefaultTiersForm labels={labels} chat={defaults.modelTiers.chat} task={defaults.modelTiers.task} />
        ) : (
          <Fields
            rows={[
              ['Chats', defaults.modelTiers.chat ? labels[defaults.modelTiers.chat] : 'Standard (default)'],
              ['Tasks', defaults.modelTiers.task ? labels[defaults.modelTiers.task] : 'Standard (default)'],
            ]}
          />
        )}
      </Section>
    </>
  );
}
