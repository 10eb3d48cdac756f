import { defineEndpoint, reply } from '@/server/http/endpoint';
import { CreateSkillBody, DeletedSkill, ListSkillsQuery, SkillEnvelope, SkillList, SkillParams, UpdateSkillBody } from './contracts';
import { createSkill, deleteSkill, getSkill, listSkills, updateSkill } from './service';

const common = { tags: ['Skills'], auth: 'any' as const };

/** Skills (spec document 2): POST as the spec says; the read, update, list and delete paths it leaves "not shown". */
export const skillEndpoints = [
  defineEndpoint({
    ...common,
    method: 'POST',
    path: '/skills',
    summary:
      "Install a workflow, an MCP server, instructions or a prompt (for the user with X-User-Email, for the whole account with an account key alone), or the account's browser skill (account key alone; 200 with the installed one when it exists)",
    body: CreateSkillBody,
    response: SkillEnvelope,
    status: 201,
    errors: [200, 400, 403, 409],
    handle: async ({ db, actor, body }) => {
      const { created, ...out } = await createSkill(db, actor, body);
      return reply(created ? 201 : 200, out);
    },
  }),
  defineEndpoint({
    ...common,
    method: 'GET',
    path: '/skills',
    summary: "The skills the caller reaches, newest first: a user's own and the account's app-wide ones",
    query: ListSkillsQuery,
    response: SkillList,
    handle: ({ db, actor, query }) => listSkills(db, actor, query),
  }),
  defineEndpoint({
    ...common,
    method: 'GET',
    path: '/skills/{skillId}',
    summary: 'One skill',
    params: SkillParams,
    response: SkillEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getSkill(db, actor, params.skillId),
  }),
  defineEndpoint({
    ...common,
    method: 'PATCH',
    path: '/skills/{skillId}',
    summary: 'Change a skill (an MCP server given a new URL or key is probed again first)',
    params: SkillParams,
    body: UpdateSkillBody,
    response: SkillEnvelope,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => updateSkill(db, actor, params.skillId, body),
  }),
  defineEndpoint({
    ...common,
    method: 'DELETE',
    path: '/skills/{skillId}',
    summary: 'Remove a skill; the tasks it created stay',
    params: SkillParams,
    response: DeletedSkill,
    errors: [403, 404],
    handle: ({ db, actor, params }) => deleteSkill(db, actor, params.skillId),
  }),
];
