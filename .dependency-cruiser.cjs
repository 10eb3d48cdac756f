/**
 * The floors of Steward and the one direction imports may take (docs/architecture.md):
 *   app, server/trpc, server/endpoints.ts, inngest, scripts      (entry points)
 *   feature areas: agent, workflows, tasks, approvals, chats, workspace
 *   identity and resource areas: users, organizations, teams, ...
 *   server/http, server/access, server/executor (+ logger, secrets, mail)
 *   db
 * A lower floor never imports a higher one; nothing imports in a cycle.
 */
const FEATURE = '^server/(agent|workflows|tasks|approvals|chats|workspace)/';
const AREA =
  '^server/(users|organizations|teams|policy|identifiers|assistants|channels|memories|contacts|files|prompts|scim|hosted|sign-in|accounts)/';
const KERNEL = '^server/(http|access|executor|secrets|mail)/|^server/logger\\.ts$';
const ENTRY = '^(app|inngest|scripts)/|^server/trpc/|^server/endpoints\\.ts$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles hide which floor owns a concept.', from: {}, to: { circular: true } },
    { name: 'db-is-the-floor', severity: 'error', from: { path: '^db/' }, to: { path: `^(server|app|inngest|scripts)/` } },
    { name: 'kernel-imports-no-area', severity: 'error', from: { path: KERNEL }, to: { path: `${AREA}|${FEATURE}|${ENTRY}` } },
    { name: 'areas-import-no-feature', severity: 'error', from: { path: AREA }, to: { path: `${FEATURE}|${ENTRY}` } },
    { name: 'features-import-no-entry', severity: 'error', from: { path: FEATURE }, to: { path: ENTRY } },
    { name: 'trpc-and-endpoints-not-from-below', severity: 'error', from: { pathNot: '^(app|scripts)/|^server/trpc/|^tests/|^e2e/' }, to: { path: '^server/trpc/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.next|\\.data|test-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
