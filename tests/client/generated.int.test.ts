import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypes } from '@/scripts/gen-client';

it('client/openapi.d.ts is what the registry generates today (regenerate with `npm run gen:client`)', async () => {
  const fresh = await clientTypes();
  const checkedIn = readFileSync(CLIENT_TYPES_FILE, 'utf8');
  // A plain boolean keeps a 13 000-line diff out of the report; the message says what to do.
  expect(checkedIn === fresh, 'client/openapi.d.ts is stale: regenerate with `npm run gen:client`').toBe(true);
  expect(fresh).toContain('"tasks.list"');
});
