// The app side of the executor benchmark in its own process: an Inngest serve endpoint with one 10-step function.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inngest } from 'inngest';
import { serve } from 'inngest/node';

const client = new Inngest({ id: 'bench', isDev: false, checkpointing: false, signingKey: process.env.SIGNING_KEY, eventKey: process.env.EVENT_KEY, baseUrl: process.env.INGRESS_URL } as never);
const fn = client.createFunction({ id: 'steps', triggers: [{ event: 'bench/go' }] } as never, (async ({ step }: { step: { run: (id: string, f: () => number) => Promise<number> } }) => {
  let sum = 0;
  for (let i = 0; i < Number(process.env.STEPS ?? 10); i++) sum += await step.run(`s${i}`, () => i);
  return sum;
}) as never);
const app = http.createServer(serve({ client, functions: [fn] }) as never);
app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(app.address() as AddressInfo).port}\n`));
