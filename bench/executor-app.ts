// The app side of the executor benchmark in its own process: an Inngest serve endpoint with the
// 10-step function, and the sleeper and waiter the wake-up measurement clones by the thousand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inngest } from 'inngest';
import { serve } from 'inngest/node';

type Step = {
  run: <T>(id: string, f: () => T) => Promise<T>;
  sleepUntil: (id: string, at: string) => Promise<void>;
  waitForEvent: (id: string, o: { event: string; timeout: string }) => Promise<unknown>;
};
const client = new Inngest({ id: 'bench', isDev: false, checkpointing: true, signingKey: process.env.SIGNING_KEY, eventKey: process.env.EVENT_KEY, baseUrl: process.env.INGRESS_URL } as never);
const fn = client.createFunction({ id: 'steps', triggers: [{ event: 'bench/go' }] } as never, (async ({ step }: { step: Step }) => {
  let sum = 0;
  for (let i = 0; i < Number(process.env.STEPS ?? 10); i++) sum += await step.run(`s${i}`, () => i);
  return sum;
}) as never);
// Both return the moment they resumed: the benchmark compares it with the time they were due.
const sleeper = client.createFunction({ id: 'sleeper', triggers: [{ event: 'bench/sleep' }] } as never, (async ({ step, event }: { step: Step; event: { data: { at: string } } }) => {
  await step.sleepUntil('nap', event.data.at);
  return step.run('woke', () => Date.now());
}) as never);
const waiter = client.createFunction({ id: 'waiter', triggers: [{ event: 'bench/wait' }] } as never, (async ({ step }: { step: Step }) => {
  await step.waitForEvent('reply', { event: 'bench/never', timeout: '1h' });
  return step.run('woke', () => Date.now());
}) as never);
const app = http.createServer(serve({ client, functions: [fn, sleeper, waiter] }) as never);
app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(app.address() as AddressInfo).port}\n`));
