/**
 * The floors of Steward and the one direction imports may take (docs/architecture.md):
 *   app, server/trpc, server/*.ts (endpoints, credentials...), inngest, scripts   (entry points)
 *   feature areas: agent, workflows, tasks, approvals, chats, workspace
 *   identity and resource areas, in the order of AREAS below
 *   server/http, server/access, server/executor, server/audit (+ logger, secrets, mail)
 *   db
 * A lower floor never imports a higher one; nothing imports in a cycle. `npm run check:deps`
 * (part of `npm test`) fails on any violation.
 */

/**
 * The identity and resource areas, lowest first: an area may import the areas listed before
 * it, never one listed after it. A new area is one line here, at the height of what it needs.
 * When a lower area must know about a higher one, it reads the table through db/ or offers a
 * hook that the higher area fills (assistants/open-tasks.ts, contacts/task-links.ts,
 * files/access.ts): it never imports upward.
 */
const AREAS = [
  'accounts', //       console jobs on an account (kill switch, certificates, rate-limit overrides)
  'hosted', //         the hosted site: domain → account, origins, Steward's SAML service provider
  'user-record', //    a user as every area sees one: public shape, who may see it, creating one
  'identifiers', //    emails and phones of a user; "who is this verified email"
  'teams', //          team membership rules
  'organizations', //  organizations, members, domains, SSO settings
  'policy', //         the one resolution account → organization → team
  'assistants', //     assistants and rosters
  'channels', //       phone lines, Slack apps, Slack/Teams OAuth
  'memories',
  'contacts',
  'files',
  'prompts', //        the tenant prompt API
  'users', //          the /users API: listing, provisioning, changing, deprovisioning, profile
  'scim', //           SCIM 2.0: identity providers provisioning users and teams
  'sign-in', //        SAML ACS/SLO, next-auth, hosted-app sessions
];
// budgets: credit budgets and the per-call reservations; a feature, since a top-up resumes tasks
// (tasks) and a crossed threshold is a webhook event (webhooks), and the agent runtime reserves through it.
// console: the hosted console's own parts (members, roles, its actor, the overview, exports); a feature, since it reads the agent's model settings.
// calendars: the user's Google, Microsoft 365 and CalDAV calendars (connections, sync, the read API); a feature,
// since its OAuth connections go through the mailbox's flow (mailboxes) and its sync fires workflow triggers.
// team-joins: people asking to join a team; a feature, since a request tells the team's admins by a notice (messaging).
const FEATURES = ['agent', 'workflows', 'tasks', 'approvals', 'chats', 'workspace', 'webhooks', 'budgets', 'messaging', 'mailboxes', 'console', 'calendars', 'team-joins'];

const folders = (names) => `^server/(${names.join('|')})/`;
const FEATURE = folders(FEATURES);
const AREA = folders(AREAS);
// audit: the recorder every floor above calls in its own transaction (and the log's API), so it sits in the kernel.
const KERNEL = '^server/(http|access|executor|secrets|mail|audit)/|^server/logger\\.ts$';
// Files directly in server/ (but the logger) compose the areas: endpoints.ts (the registry),
// credentials.ts, route-handlers.ts, and any hook registration to come.
const ENTRY = '^(app|inngest|scripts)/|^server/trpc/|^server/(?!logger\\.ts$)[^/]+$';

/** One rule per area: nothing listed after it. */
const areaRules = AREAS.slice(0, -1).map((area, i) => ({
  name: `area-${area}-imports-only-lower-areas`,
  severity: 'error',
  comment: `${area} sits below ${AREAS.slice(i + 1).join(', ')} (AREAS in .dependency-cruiser.cjs)`,
  from: { path: folders([area]) },
  to: { path: folders(AREAS.slice(i + 1)) },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles hide which floor owns a concept.', from: {}, to: { circular: true } },
    {
      name: 'every-server-folder-has-a-floor',
      severity: 'error',
      comment: 'A new folder under server/ goes into AREAS or FEATURES (or the kernel) first, so the rules cover it.',
      from: { path: '^server/', pathNot: `${AREA}|${FEATURE}|${KERNEL}|${ENTRY}` },
      to: {},
    },
    { name: 'db-is-the-floor', severity: 'error', from: { path: '^db/' }, to: { path: `^(server|app|inngest|scripts)/` } },
    { name: 'kernel-imports-no-area', severity: 'error', from: { path: KERNEL }, to: { path: `${AREA}|${FEATURE}|${ENTRY}` } },
    ...areaRules,
    { name: 'areas-import-no-feature', severity: 'error', from: { path: AREA }, to: { path: `${FEATURE}|${ENTRY}` } },
    { name: 'features-import-no-entry', severity: 'error', from: { path: FEATURE }, to: { path: ENTRY } },
    {
      name: 'trpc-and-endpoints-not-from-below',
      severity: 'error',
      from: { pathNot: '^(app|scripts)/|^server/trpc/|^tests/|^e2e/' },
      to: { path: '^server/trpc/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.next|\\.data|test-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
