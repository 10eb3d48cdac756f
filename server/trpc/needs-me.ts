import type { Db } from '@/db/client';
import type { Actor } from '@/server/access/actor';
import { countWaitingCarts } from '@/server/approvals/sent';
import { listCarts } from '@/server/approvals/service';
import { countTasksNeedingUser, tasksNeedingUser } from '@/server/tasks/needs-user';
import { listActiveHandoffs } from '@/server/workspace/handoffs/service';

/*
 * The hosted home page's one list, "what needs me": carts waiting (the approvals service), tasks
 * that ask, propose, failed or are held (the tasks area's read query), open handoffs (the
 * workspace service), most pressing first. Composed here, on the entry floor, because it spans
 * three features; each item's actions call that feature's own procedure.
 */

type Cart = Awaited<ReturnType<typeof listCarts>>['carts'][number];
type NeedyTask = Awaited<ReturnType<typeof tasksNeedingUser>>[number];
type Handoff = Awaited<ReturnType<typeof listActiveHandoffs>>['handoffs'][number];

export type NeedsMeItem =
  | { kind: 'cart'; key: string; at: string; cart: Cart }
  | { kind: 'question'; key: string; at: string; task: NeedyTask['task']; question: string | null }
  | { kind: 'proposal'; key: string; at: string; task: NeedyTask['task'] }
  | { kind: 'stuck'; key: string; at: string; task: NeedyTask['task'] }
  | { kind: 'handoff'; key: string; at: string; handoff: Handoff };

function taskItem({ task, question }: NeedyTask): NeedsMeItem {
  if (task.proposalStatus === 'pending_user_approval') return { kind: 'proposal', key: `proposal-${task.id}`, at: task.updatedAt, task };
  if (task.status === 'awaiting_user_input') return { kind: 'question', key: `question-${task.id}`, at: task.updatedAt, task, question };
  return { kind: 'stuck', key: `stuck-${task.id}`, at: task.updatedAt, task };
}

/**
 * How pressing an item is (lower first): a time-boxed send goes by itself when its window ends,
 * a handoff expires, a question blocks a task, an approval holds a send back, a proposal waits
 * for a go-ahead, a stopped task waits until the person looks.
 */
function rank(i: NeedsMeItem): number {
  if (i.kind === 'cart') return i.cart.status === 'time_boxed' ? 0 : 3;
  return { handoff: 1, question: 2, proposal: 4, stuck: 5 }[i.kind];
}
/** Within a rank: the time-boxed window that ends first, else the item waiting longest. */
const due = (i: NeedsMeItem) => (i.kind === 'cart' && i.cart.timeBoxedExpiresAt ? i.cart.timeBoxedExpiresAt : i.kind === 'handoff' ? i.handoff.expiresAt : i.at);

/**
 * What waits on the person, each thing once (a task whose staged actions or open handoff wait on
 * them is listed as that cart or handoff only: server/tasks/needs-user.ts), most pressing first;
 * the first `limit`, and how many there are in all (the count in the navigation).
 */
export async function needsMe(db: Db, actor: Actor, limit: number) {
  const [{ carts }, tasks, { handoffs }, waitingCarts, waitingTasks] = await Promise.all([
    listCarts(db, actor, { status: ['pending_approval', 'time_boxed'] }),
    tasksNeedingUser(db, actor, limit),
    listActiveHandoffs(db, actor),
    countWaitingCarts(db, actor),
    countTasksNeedingUser(db, actor),
  ]);
  const total = waitingCarts + waitingTasks + handoffs.length;
  const items: NeedsMeItem[] = [
    ...carts.map((cart): NeedsMeItem => ({ kind: 'cart', key: `cart-${cart.id}`, at: cart.updatedAt, cart })),
    ...tasks.map(taskItem),
    ...handoffs.map((handoff): NeedsMeItem => ({ kind: 'handoff', key: `handoff-${handoff.id}`, at: handoff.createdAt, handoff })),
  ];
  items.sort((a, b) => rank(a) - rank(b) || (due(a) < due(b) ? -1 : due(a) > due(b) ? 1 : a.key < b.key ? -1 : 1));
  return { items: items.slice(0, limit), total };
}

/** How many things wait on the person: carts, tasks and open handoffs. */
export async function needsMeCount(db: Db, actor: Actor): Promise<number> {
  const [carts, tasks, { handoffs }] = await Promise.all([countWaitingCarts(db, actor), countTasksNeedingUser(db, actor), listActiveHandoffs(db, actor)]);
  return carts + tasks + handoffs.length;
}
