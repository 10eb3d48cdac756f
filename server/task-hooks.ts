import { registerOpenTasks } from '@/server/assistants/open-tasks';
import { registerTaskLinks } from '@/server/contacts/task-links';
import { registerFileSharing } from '@/server/files/access';
import { discardTaskCarts } from '@/server/approvals/discard';
import { registerCartDiscard } from '@/server/tasks/cart-discard';
import { registerTaskEnded } from '@/server/tasks/ended-hooks';
import { workflowTaskEnded } from '@/server/workflows/triggers/system';
import { moveWaitingOnContacts, openTasks, sharedThroughTask } from '@/server/tasks/hooks';
import { registerTaskMoved } from '@/server/tasks/moved-hooks';
import { taskStatusNotice } from '@/server/notices/events';

/*
 * Composition (entry floor): the tasks area's answers to the hooks lower areas expose. Releasing
 * an assistant counts and hands on its open tasks; a contact merge moves the tasks waiting on the
 * merged contact; a file attached to a task is readable by the task's followers; marking a task
 * done discards the carts it has not released. Imported by
 * server/runtime.ts (every process that serves the API) and by tests.
 */
registerOpenTasks(openTasks);
registerTaskLinks(moveWaitingOnContacts);
registerFileSharing(sharedThroughTask);
registerCartDiscard((tx, taskId, reason) => discardTaskCarts(tx, taskId, reason));

// A workflow's task ended: its queue moves on and other workflows' system triggers fire (same transaction).
registerTaskEnded((tx, task) => workflowTaskEnded(tx, task));
import './notice-runtime';

// A task that failed or ran out of credits needs its user: a notice finds them (same transaction).
registerTaskMoved((tx, task) => taskStatusNotice(tx, task));
import './timer-runtime';
import './twilio-runtime';
import './slack-runtime';
