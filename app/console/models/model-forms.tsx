'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';
import { Input, Select } from '@/app/_ui/controls';
import { Field, FormRow } from '@/app/_ui/field';
import { Confirm } from '../_ui/confirm';
import { useChange } from '../_ui/use-change';

type Tier = 'low' | 'medium' | 'high' | 'ultra';

/** Sets a tier's model: on the deployment's endpoint, or on the account's own (with its key, kept sealed and never shown again). */
export function ModelForm({ tiers }: { tiers: Array<{ tier: Tier; label: string }> }) {
  const { pending, change } = useChange();
  const [tier, setTier] = useState<Tier>('medium');
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const label = tiers.find((t) => t.tier === tier)?.label ?? tier;
  return (
    <form
      aria-label="Set a tier’s model"
      onSubmit={(e) => {
        e.preventDefault();
        void change(
          () => trpc.console.settings.setModel.mutate({ tier, model: model.trim(), ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}) }),
          `${label} now uses ${model.trim()}.`,
        ).then((r) => {
          if (r) {
            setModel('');
            setApiKey('');
          }
        });
      }}
    >
      <FormRow>
        <Field id="model-tier" label="Tier">
          <Select id="model-tier" value={tier} onChange={(e) => setTier(e.target.value as Tier)}>
            {tiers.map((t) => (
              <option key={t.tier} value={t.tier}>
                {t.label}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="model-id" label="Model">
          <Input id="model-id" value={model} required maxLength={256} onChange={(e) => setModel(e.target.value)} />
        </Field>
        <Field id="model-url" label="Own endpoint (optional)">
          <Input id="model-url" type="url" placeholder="https://…/v1" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        </Field>
        <Field id="model-key" label="Its API key (optional)">
          <Input id="model-key" type="password" autoComplete="off" value={apiKey} disabled={!baseUrl.trim()} onChange={(e) => setApiKey(e.target.value)} />
        </Field>
        <Button type="submit" disabled={pending || !model.trim()}>
          Save model
        </Button>
      </FormRow>
    </form>
  );
}

/** Gives a tier back to the deployment's environment. */
export function UseDeploymentModel({ tier, label, deploymentModel }: { tier: Tier; label: string; deploymentModel: string | null }) {
  const { pending, change } = useChange();
  return (
    <Confirm
      label="Use the deployment’s"
      srLabel={`model for ${label}`}
      danger={false}
      disabled={pending}
      title={`Use the deployment’s model for ${label}?`}
      description={deploymentModel ? `The tier goes back to ${deploymentModel}.` : 'The deployment sets no model for this tier: the nearest configured tier serves it.'}
      confirm="Use the deployment’s model"
      onConfirm={() => void change(() => trpc.console.settings.setModel.mutate({ tier, model: 'default' }), `${label} uses the deployment’s model again.`)}
    />
  );
}

/** The account's default tiers for chats and tasks; empty is "Standard". */
export function DefaultTiersForm({ labels, chat, task }: { labels: Record<string, string>; chat: Tier | null; task: Tier | null }) {
  const { pending, change } = useChange();
  const [chatTier, setChat] = useState<string>(chat ?? '');
  const [taskTier, setTask] = useState<string>(task ?? '');
  const options = (
    <>
      <option value="">Standard (default)</option>
      {Object.entries(labels).map(([v, l]) => (
        <option key={v} value={v}>
          {l}
        </option>
      ))}
    </>
  );
  return (
    <form
      aria-label="Default tiers"
      onSubmit={(e) => {
        e.preventDefault();
        void change(() => trpc.console.settings.setDefaultTiers.mutate({ chat: (chatTier || null) as Tier | null, task: (taskTier || null) as Tier | null }), 'Default tiers saved.');
      }}
    >
      <FormRow>
        <Field id="tier-chat" label="Chats">
          <Select id="tier-chat" value={chatTier} onChange={(e) => setChat(e.target.value)}>
            {options}
          </Select>
        </Field>
        <Field id="tier-task" label="Tasks">
          <Select id="tier-task" value={taskTier} onChange={(e) => setTask(e.target.value)}>
            {options}
          </Select>
        </Field>
        <Button type="submit" disabled={pending}>
          Save default tiers
        </Button>
      </FormRow>
    </form>
  );
}
