/**
 * The floors of Steward and the one direction imports may take (docs/architecture.md):
 *   app, server/trpc, server/compose, server/*.ts (endpoints, credentials...), inngest, scripts   (entry points)
 *   feature areas, in the order of FEATURES below
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
  'models', //         the model layer: providers, tiers, prices, model calls, the untrusted-data wrapper
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
  'notices', //        what needs the user (recorded, quiet hours, sent once, one-time link), channel threads
  'team-joins', //     people asking to join a team; the team's admins are told by a notice
  'console', //        the hosted console's own parts (members, roles, its actor, overview, exports); model settings
];

/**
 * The feature areas, lowest first: a feature may import the features listed before it, never one
 * listed after it (one rule per feature, like the areas'). A piece a lower feature needs from a
 * higher one moves down to where its importers are above it (the model layer and notices became
 * areas for that); a lower feature that must reach a higher one takes it as a typed value.
 */
const FEATURES = [
  'webhooks', //  outbound webhook events and their delivery (the features after it raise events)
  'tasks', //     tasks, status moves, runs, holds, delegation (raises webhook events)
  'budgets', //   credit budgets and per-call reservations: a top-up resumes tasks, a crossed threshold is a webhook event
  'workflows', // skills and workflow triggers, which start tasks
  'workspace', // each user's browser and shell, jobs, handoffs: jobs report to their task and spend budget
  'calendars', // Google, Microsoft 365, CalDAV calendars: sync fires workflow triggers; connecting one wakes the tasks waiting
  'mailboxes', // the user's mailbox: received mail wakes tasks or fires triggers; its OAuth callback finishes calendar connections too
  'approvals', // carts: staging, approval, exactly-once dispatch (mailbox mail, calendar writes, MCP calls); a decision wakes the task
  'agent', //     the one agent loop and its tools, which call the features before it as the run's owner
  'chats', //     chats, the streaming turn (the agent loop's chat host), live voice
  'messaging', // the channel layer: who wrote, where it goes (a chat turn, a task, a decision on a cart), replies
];

const folders = (names) => `^server/(${names.join('|')})/`;
const FEATURE = folders(FEATURES);
const AREA = folders(AREAS);
// audit: the recorder every floor above calls in its own transaction (and the log's API), so it sits in the kernel.
const KERNEL = '^server/(http|access|executor|secrets|mail|audit)/|^server/logger\\.ts$';
// Files directly in server/ (but the logger) compose the areas: endpoints.ts (the registry),
// credentials.ts, route-handlers.ts, and any hook registration to come.
const ENTRY = '^(app|inngest|scripts)/|^server/(trpc|compose)/|^server/(?!logger\\.ts$)[^/]+$';

/** One rule per feature: nothing listed after it. */
const featureRules = FEATURES.slice(0, -1).map((feature, i) => ({
  name: `feature-${feature}-imports-only-lower-features`,
  severity: 'error',
  comment: `${feature} sits below ${FEATURES.slice(i + 1).join(', ')} (FEATURES in .dependency-cruiser.cjs)`,
  from: { path: folders([feature]) },
  to: { path: folders(FEATURES.slice(i + 1)) },
}));

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
    ...featureRules,
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
