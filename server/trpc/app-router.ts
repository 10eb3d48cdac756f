import { router } from './init';
import { approvalsRouter } from './routers/approvals';
import { authRouter } from './routers/auth';
import { organizationsRouter } from './routers/organizations';
import { teamsRouter } from './routers/teams';

/** One small router per area of the hosted app. */
export const appRouter = router({ approvals: approvalsRouter, auth: authRouter, organizations: organizationsRouter, teams: teamsRouter });
export type AppRouter = typeof appRouter;
