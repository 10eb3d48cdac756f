import { router } from './init';
import { apiKeysRouter } from './routers/api-keys';
import { approvalsRouter } from './routers/approvals';
import { authRouter } from './routers/auth';
import { calendarRouter } from './routers/calendar';
import { channelsRouter } from './routers/channels';
import { chatsRouter } from './routers/chats';
import { consoleRouter } from './routers/console';
import { contactsRouter } from './routers/contacts';
import { filesRouter } from './routers/files';
import { handoffsRouter } from './routers/handoffs';
import { identifiersRouter } from './routers/identifiers';
import { inboxRouter } from './routers/inbox';
import { memoriesRouter } from './routers/memories';
import { organizationsRouter } from './routers/organizations';
import { sentRouter } from './routers/sent';
import { settingsRouter } from './routers/settings';
import { skillsRouter } from './routers/skills';
import { tasksRouter } from './routers/tasks';
import { teamsRouter } from './routers/teams';
import { usageRouter } from './routers/usage';
import { voiceRouter } from './routers/voice';

/** One small router per area of the hosted app. */
export const appRouter = router({
  apiKeys: apiKeysRouter,
  approvals: approvalsRouter,
  auth: authRouter,
  calendar: calendarRouter,
  channels: channelsRouter,
  chats: chatsRouter,
  console: consoleRouter,
  contacts: contactsRouter,
  files: filesRouter,
  handoffs: handoffsRouter,
  identifiers: identifiersRouter,
  inbox: inboxRouter,
  memories: memoriesRouter,
  organizations: organizationsRouter,
  sent: sentRouter,
  settings: settingsRouter,
  skills: skillsRouter,
  tasks: tasksRouter,
  teams: teamsRouter,
  usage: usageRouter,
  voice: voiceRouter,
});
export type AppRouter = typeof appRouter;
