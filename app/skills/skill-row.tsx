'use client';
import { Bot, Globe, History, Plug, ScrollText, Workflow } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import { TASK_STATUS } from '@/app/_lib/labels';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Out } from '@/app/_lib/types';
import { Button } from '@/app/_ui/button';
import { Switch } from '@/app/_ui/controls';
import { Sheet } from '@/app/_ui/dialog';
import { Row } from '@/app/_ui/list';
import { Badge, Empty, Loading } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { useNotify } from '@/app/_ui/toast';

type Skill = Out['skills']['list']['skills'][number];
type Runs = Out['skills']['runs']['runs'];

const KIND: Record<Skill['kind'], { label: string; icon: ReactNode }> = {
  workflow: { label: 'Workflow', icon: <Workflow aria-hidden="true" /> },
  mcp: { label: 'Connected app', icon: <Plug aria-hidden="true" /> },
  instructions: { label: 'Instructions', icon: <ScrollText aria-hidden="true" /> },
  prompt: { label: 'Prompt', icon: <Bot aria-hidden="true" /> },
  browser: { label: 'Browser', icon: <Globe aria-hidden="true" /> },
};
const FIRING: Record<string, string> = { queued: 'Waiting its turn', started: 'Started a task', dropped: 'Skipped (too many at once)', replaced: 'Replaced by a newer one', skipped: 'Skipped' };

/** A skill: what it is, on or off (its owner's own; the company's are shown as set), and a workflow's runs in a panel. */
export function SkillRow({ skill: s }: { skill: Skill }) {
  const router = useRouter();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const [runs, setRuns] = useState<Runs | null>(null);
  const name = s.title ?? s.name;
  const mine = s.scope === 'user';
  const toggle = async (enabled: boolean) => {
    setPending(true);
    try {
      await trpc.skills.setEnabled.mutate({ skillId: s.id, enabled });
      notify('ok', `${name} is ${enabled ? 'on' : 'off'}.`);
      router.refresh();
    } catch (e) {
      notify('error', describeError(e).message);
    } finally {
      setPending(false);
    }
  };
  return (
    <Row
      titleAs="h3"
      lead={KIND[s.kind].icon}
      title={name}
      meta={
        <>
          <span>{KIND[s.kind].label}</span>
          {!mine && (
            <>
              <span aria-hidden="true">·</span>
              <span>from your company</span>
            </>
          )}
          {s.kind === 'workflow' && (
            <>
              <span aria-hidden="true">·</span>
              <span>{s.lastFiredAt ? <>last ran <Time value={s.lastFiredAt} /></> : 'has not run yet'}</span>
            </>
          )}
          {s.description && <span className="w-full truncate">{s.description}</span>}
        </>
      }
      trail={
        <>
          {s.kind === 'workflow' && (
            <Sheet
              title={`Runs of ${name}`}
              onOpenChange={(open) => {
                if (open && !runs)
                  void trpc.skills.runs
                    .query({ skillId: s.id })
                    .then((r) => setRuns(r.runs))
                    .catch((e) => notify('error', describeError(e).message));
              }}
              trigger={
                <Button variant="ghost" size="sm">
                  <History aria-hidden="true" />
                  Runs<span className="sr-only"> of {name}</span>
                </Button>
              }
            >
              {runs === null ? (
                <Loading />
              ) : runs.length === 0 ? (
                <Empty title="No runs yet." />
              ) : (
                <ul className="divide-y divide-border" aria-label={`Runs of ${name}`}>
                  {runs.map((r) => (
                    <li key={r.id} className="py-2">
                      <p className="text-sm text-muted">
                        <Time value={r.at} /> · {FIRING[r.status] ?? r.status}
                        {r.reason ? ` (${r.reason})` : ''}
                      </p>
                      {r.task && (
                        <p>
                          <Link href={`/tasks/${r.task.id}`}>{r.task.title}</Link> {r.task.status && <Badge>{TASK_STATUS[r.task.status as keyof typeof TASK_STATUS] ?? r.task.status}</Badge>}
                        </p>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </Sheet>
          )}
          {mine ? (
            <Switch aria-label={`${name}: on`} checked={s.enabled} disabled={pending} onChange={(e) => void toggle(e.target.checked)} />
          ) : (
            <Badge tone={s.enabled ? 'ok' : 'plain'}>{s.enabled ? 'On' : 'Off'}</Badge>
          )}
        </>
      }
    />
  );
}
