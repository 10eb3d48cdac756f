import { discardTaskCarts } from '@/server/approvals/discard';
import { registerOpenTasks } from '@/server/assistants/open-tasks';
import { stopUnreadPush } from '@/server/calendars/push-unread';
import { registerTaskLinks } from '@/server/contacts/task-links';
import { registerFileSharing } from '@/server/files/access';
import { taskStatusNotice } from '@/server/notices/events';
import { registerCartDiscard } from '@/server/tasks/cart-discard';
import { registerTaskEnded } from '@/server/tasks/ended-hooks';
import { moveWaitingOnContacts, openTasks, sharedThroughTask } from '@/server/tasks/hooks';
import { registerTaskMoved } from '@/server/tasks/moved-hooks';
import { registerPreferencesWritten } from '@/server/users/profile';
import { workflowTaskEnded } from '@/server/workflows/triggers/system';

/**
 * The higher areas' answers to the hooks lower areas expose (a lower area never imports upward):
 * releasing an assistant counts and hands on its open tasks; a contact merge moves the tasks
 * waiting on the merged contact; a file attached to a task is readable by the task's followers;
 * marking a task done discards the carts it has not released; a workflow's task that ended moves
 * its queue on and fires other workflows' system triggers; a task that failed or ran out of
 * credits needs its user, and a notice finds them; a preferences change that stops reading a
 * calendar stops its push channel. Each answer runs in the caller's transaction.
 */
export function wireAreaHooks(): void {
  registerOpenTasks(openTasks);
  registerTaskLinks(moveWaitingOnContacts);
  registerFileSharing(sharedThroughTask);
  registerCartDiscard((tx, taskId, reason) => discardTaskCarts(tx, taskId, reason));
  registerTaskEnded((tx, task) => workflowTaskEnded(tx, task));
  registerTaskMoved((tx, task) => taskStatusNotice(tx, task));
  registerPreferencesWritten(stopUnreadPush);
}
