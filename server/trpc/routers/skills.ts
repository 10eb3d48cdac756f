import { z } from 'zod';
import { ListSkillsQuery } from '@/server/workflows/contracts';
import { listWorkflowRuns } from '@/server/workflows/runs';
import { listSkills, updateSkill } from '@/server/workflows/service';
import { router, userProcedure } from '../init';

const Skill = z.object({ skillId: z.string().min(1) });

/** The Skills and workflows page: the skills service of /skills with the session's person, and a workflow's runs. */
export const skillsRouter = router({
  list: userProcedure.input(ListSkillsQuery.prefault({})).query(({ ctx, input }) => listSkills(ctx.db, ctx.actor, input)),
  /** On or off: the owner's own skills (an app-wide skill is the account's to change: 403 from the service). */
  setEnabled: userProcedure.input(Skill.extend({ enabled: z.boolean() })).mutation(({ ctx, input }) => updateSkill(ctx.db, ctx.actor, input.skillId, { enabled: input.enabled })),
  runs: userProcedure.input(Skill.extend({ limit: z.number().int().min(1).max(100).default(20) })).query(({ ctx, input }) => listWorkflowRuns(ctx.db, ctx.actor, input.skillId, input.limit)),
});
