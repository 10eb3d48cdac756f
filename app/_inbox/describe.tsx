import { dispatchTitle } from '@/app/approvals/dispatch-view';
import type { Dispatch } from '@/app/approvals/types';
import { STUCK_HINT, TASK_STATUS } from '@/app/_lib/labels';
import type { NeedsMeItem } from '@/app/_lib/types';
import type { Tone } from '@/app/_ui/states';
import type { RowIconName } from './row-icon';

/** What a row says of an item: what kind of thing waits, its title, one line of its content, its main action. */
export type Described = { title: string; kind: string; tone: Tone; icon: RowIconName; line: string; primary: string; when: string | null; whenLabel: string };

/** A send's kind as its row shows it: the approvals page's icons (dispatch-view's KIND_ICON), drawn as a RowIcon. */
const SEND_ICON: Record<Dispatch['type'], RowIconName> = { email: 'mail', message: 'message', calendar_event: 'calendar', skill_action: 'puzzle', call: 'phone' };

const firstLine = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, 160);

export function describe(item: NeedsMeItem): Described {
  switch (item.kind) {
    case 'cart': {
      const { cart } = item;
      const d = cart.dispatches[0];
      const more = cart.dispatches.length > 1 ? ` (+${cart.dispatches.length - 1} more)` : '';
      const what = d ? `${dispatchTitle(d)}${d.subject ? ` · ${d.subject}` : ''}${more}` : 'Nothing left to send';
      const boxed = cart.status === 'time_boxed';
      return {
        title: cart.taskTitle,
        kind: boxed ? 'Sends by itself' : 'To approve',
        tone: boxed ? 'danger' : 'warn',
        icon: boxed ? 'timer' : d ? SEND_ICON[d.type] : SEND_ICON.email,
        line: `${what}${d?.body ? ` — ${firstLine(d.body)}` : ''}`,
        primary: 'Approve',
        when: boxed ? cart.timeBoxedExpiresAt : cart.createdAt,
        whenLabel: boxed ? 'Sends' : 'Staged',
      };
    }
    case 'question':
      return { title: item.task.title, kind: 'Question', tone: 'accent', icon: 'question', line: firstLine(item.question) || 'Your assistant is waiting for your reply.', primary: 'Answer', when: item.at, whenLabel: 'Asked' };
    case 'proposal':
      return { title: item.task.title, kind: 'Proposed task', tone: 'accent', icon: 'lightbulb', line: firstLine(item.task.description) || 'Your assistant proposes this task.', primary: 'Approve', when: item.at, whenLabel: 'Proposed' };
    case 'stuck':
      return { title: item.task.title, kind: TASK_STATUS[item.task.status], tone: item.task.status === 'error' || item.task.status === 'failed_access' ? 'danger' : 'warn', icon: 'alert', line: STUCK_HINT[item.task.status] ?? 'It stopped and waits for you.', primary: 'Resume', when: item.at, whenLabel: 'Stopped' };
    case 'handoff':
      return { title: item.handoff.prompt || 'Your assistant needs you in the browser', kind: 'In the browser', tone: 'warn', icon: 'globe', line: item.handoff.targetUrl ? `At ${item.handoff.targetUrl}` : 'A page needs you to take over.', primary: 'Open', when: item.handoff.expiresAt, whenLabel: 'Open until' };
  }
}

/** Carts that can be approved together: every action's content is the assistant's own (none held for outside content). */
export const bulkApprovable = (item: NeedsMeItem) => item.kind === 'cart' && item.cart.dispatches.length > 0 && item.cart.dispatches.every((d) => !d.heldBecause);
