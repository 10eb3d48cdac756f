import { AlarmClock, ShieldAlert } from 'lucide-react';
import { TASK_STATUS, statusTone } from '@/app/_lib/labels';
import type { TaskSummary } from '@/app/_lib/types';
import { Row } from '@/app/_ui/list';
import { Badge } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';

/** One task as a compact row: title, status, assistant, last change; what waits on the person as a badge. */
export function TaskRow({ task: t, assistant, titleAs = 'h2' }: { task: TaskSummary; assistant: string; titleAs?: 'h2' | 'h3' }) {
  return (
    <Row
      title={t.title}
      href={`/tasks/${t.id}`}
      titleAs={titleAs}
      meta={
        <>
          <span>{assistant}</span>
          <span aria-hidden="true">·</span>
          <span>
            updated <Time value={t.updatedAt} />
          </span>
          {t.alarm?.status === 'set' && (
            <span className="inline-flex items-center gap-1">
              <AlarmClock aria-hidden="true" className="size-3.5" /> wakes <Time value={t.alarm.wakeAt} />
            </span>
          )}
        </>
      }
      trail={
        <span className="flex flex-wrap justify-end gap-1">
          {t.proposalStatus === 'pending_user_approval' && <Badge tone="accent">Proposed</Badge>}
          {t.pendingCart && <Badge tone="warn">To approve</Badge>}
          {t.tainted && (
            <Badge tone="warn" className="hidden sm:inline-flex">
              <ShieldAlert aria-hidden="true" className="size-3" />
              Read outside content
            </Badge>
          )}
          {/* A task waiting only for its cart's approval says so once ("To approve"), not twice. */}
          {!(t.pendingCart && t.status === 'awaiting_user_input') && <Badge tone={statusTone(t.status)}>{TASK_STATUS[t.status]}</Badge>}
        </span>
      }
    />
  );
}
