import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The floors rule itself (.dependency-cruiser.cjs, run by `npm run check:deps` in `npm test`):
 * the project's own rules cruise a small tree in a temporary folder, laid out as server/ is,
 * with deliberate upward imports (each must be refused by the rule named for it) and allowed
 * downward ones (none may be refused). The upward imports are the ties the floors were set to
 * break (a lower feature reaching into the agent, messaging or chats; calendars into mailboxes):
 * loosening a rule, dropping one or reordering those floors fails here.
 */

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as { forbidden: IForbiddenRuleType[] };

/** Every file of the tree and what it imports (relative, as the rules see resolved paths). */
const tree: Record<string, string[]> = {
  // Upward between features: each lower feature importing one listed after it.
  'server/webhooks/emit.ts': ['../tasks/move'],
  'server/tasks/usage.ts': ['../agent/loop'],
  'server/approvals/notify.ts': ['../messaging/threads'],
  'server/mailboxes/take.ts': ['../messaging/mailbox-inbound'],
  'server/calendars/oauth.ts': ['../mailboxes/contracts'],
  'server/agent/host.ts': ['../chats/stream-hub'],
  // Upward between floors: an area importing a feature, a lower area a higher one, the kernel an area.
  'server/notices/create.ts': ['../tasks/move'],
  'server/models/tiers.ts': ['../notices/quiet-hours'],
  'server/http/errors.ts': ['../models/prices'],
  // A folder given no floor.
  'server/gadgets/thing.ts': ['../http/status'],
  // Allowed: down between features, a feature into an area, an area into a lower one, anything into the kernel.
  'server/messaging/inbound.ts': ['../chats/turn-queue', '../approvals/decide', '../notices/deliver'],
  'server/chats/turn-queue.ts': ['../agent/tools'],
  'server/agent/tools.ts': ['../approvals/staging', '../models/language-model'],
  'server/approvals/staging.ts': ['../mailboxes/send', '../tasks/runs'],
  'server/mailboxes/send.ts': ['../calendars/grants'],
  'server/calendars/grants.ts': ['../workflows/events'],
  'server/workflows/events.ts': ['../tasks/runs'],
  'server/tasks/runs.ts': ['../webhooks/deliver', '../notices/deliver'],
  'server/notices/deliver.ts': ['../models/language-model', '../http/status'],
  'server/models/language-model.ts': ['../http/status'],
};
const leaves = [
  'server/tasks/move.ts',
  'server/agent/loop.ts',
  'server/messaging/threads.ts',
  'server/messaging/mailbox-inbound.ts',
  'server/mailboxes/contracts.ts',
  'server/chats/stream-hub.ts',
  'server/notices/quiet-hours.ts',
  'server/models/prices.ts',
  'server/http/status.ts',
  'server/approvals/decide.ts',
  'server/webhooks/deliver.ts',
];

let root: string;
let result: ICruiseResult;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'steward-floors-'));
  const write = (file: string, body: string) => {
    mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(root, file), body);
  };
  for (const [file, imports] of Object.entries(tree)) {
    write(file, `${imports.map((to, i) => `import { v as v${i} } from '${to}';`).join('\n')}\nexport const v = [${imports.map((_, i) => `v${i}`).join(', ')}];\n`);
  }
  for (const file of leaves) write(file, 'export const v = 1;\n');
  const out = await cruise(['server'], {
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
  });
  result = out.output as ICruiseResult;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the floors rule', () => {
  it('cruised the whole tree', () => {
    expect(result.modules.filter((m) => !m.coreModule).map((m) => m.source).sort()).toEqual([...Object.keys(tree), ...leaves].sort());
  });

  it('refuses each upward import by the rule for its floor, and nothing else', () => {
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    expect(found).toEqual(
      [
        'feature-webhooks-imports-only-lower-features: server/webhooks/emit.ts → server/tasks/move.ts',
        'feature-tasks-imports-only-lower-features: server/tasks/usage.ts → server/agent/loop.ts',
        'feature-approvals-imports-only-lower-features: server/approvals/notify.ts → server/messaging/threads.ts',
        'feature-mailboxes-imports-only-lower-features: server/mailboxes/take.ts → server/messaging/mailbox-inbound.ts',
        'feature-calendars-imports-only-lower-features: server/calendars/oauth.ts → server/mailboxes/contracts.ts',
        'feature-agent-imports-only-lower-features: server/agent/host.ts → server/chats/stream-hub.ts',
        'areas-import-no-feature: server/notices/create.ts → server/tasks/move.ts',
        'area-models-imports-only-lower-areas: server/models/tiers.ts → server/notices/quiet-hours.ts',
        'kernel-imports-no-area: server/http/errors.ts → server/models/prices.ts',
        'every-server-folder-has-a-floor: server/gadgets/thing.ts → server/http/status.ts',
      ].sort(),
    );
    expect(result.summary.violations.every((v) => v.rule.severity === 'error')).toBe(true);
  });

  it('lets every downward import through', () => {
    const refusedFrom = new Set(result.summary.violations.map((v) => v.from));
    const allowed = ['server/messaging/inbound.ts', 'server/chats/turn-queue.ts', 'server/agent/tools.ts', 'server/approvals/staging.ts', 'server/mailboxes/send.ts', 'server/calendars/grants.ts', 'server/workflows/events.ts', 'server/tasks/runs.ts', 'server/notices/deliver.ts', 'server/models/language-model.ts'];
    expect(allowed.filter((f) => refusedFrom.has(f))).toEqual([]);
    // The imports were seen (and resolved), so "no violation" means allowed, not unread.
    const inbound = result.modules.find((m) => m.source === 'server/messaging/inbound.ts');
    expect(inbound?.dependencies.map((d) => d.resolved).sort()).toEqual(['server/approvals/decide.ts', 'server/chats/turn-queue.ts', 'server/notices/deliver.ts']);
  });
});
