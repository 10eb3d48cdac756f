import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { haproxyConfig } from '../helpers/haproxy';

/** docs/deploy.md's HAProxy configuration is the one the cluster test runs (tests/helpers/haproxy.ts), for three processes at 10.0.0.5–7. */
describe('the documented HAProxy configuration', () => {
  it('is what the cluster test renders', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/deploy.md'), 'utf8');
    const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
    const rendered = haproxyConfig({
      bind: ':443 ssl crt /etc/haproxy/steward.pem',
      smtpBind: ':25',
      servers: [1, 2, 3].map((i) => ({ name: `steward-${i}`, host: `10.0.0.${4 + i}`, port: 3000, smtpPort: 2525 })),
    });
    expect(block).toBe(rendered);
  });
});
