/**
 * Writes the missing app/api/.../route.ts files for the registry (and lists stray ones).
 * Run after adding endpoints: `npx tsx scripts/gen-routes.ts`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { endpoints } from '../server/endpoints';

export const routeFileFor = (apiPath: string) =>
  path.join('app', 'api', ...apiPath.split('/').filter(Boolean).map((s) => s.replace(/^\{(\w+)\}$/, '[$1]')), 'route.ts');

const byPath = new Map<string, string[]>();
for (const e of endpoints) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e.method]);
for (const [p, methods] of byPath) {
  const file = routeFileFor(p);
  const content = `import { routeHandlers } from '@/server/route-handlers';\n\nexport const { ${methods.sort().join(', ')} } = routeHandlers('${p}');\nexport const dynamic = 'force-dynamic';\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file) || process.argv.includes('--force')) writeFileSync(file, content);
}
console.log(`${byPath.size} route files in place`);
