// The executor benchmark's functions: the 10-step function, and the sleeper and waiter the
// wake-up measurement clones by the thousand. Served from their own process (executor-app.ts)
// or in the executor's process (bench/executor.ts, as npm start serves Steward's functions).
import { Inngest } from 'inngest';

type Step = {
  run: <T>(id: string, f: () => T) => Promise<T>;
  sleepUntil: (id: string, at: string) => Promise<void>;
  waitForEvent: (id: string, o: { event: string; timeout: string }) => Promise<unknown>;
};

export function benchFunctions(opts: { signingKey: string; eventKey: string; ingressUrl: string; steps: number; fetch?: typeof fetch }) {
  const client = new Inngest({ id: 'bench', isDev: false, checkpointing: true, signingKey: opts.signingKey, eventKey: opts.eventKey, baseUrl: opts.ingressUrl, ...(opts.fetch ? { fetch: opts.fetch } : {}) } as never);
  const fn = client.createFunction({ id: 'steps', triggers: [{ event: 'bench/go' }] } as never, (async ({ step }: { step: Step }) => {
    let sum = 0;
    for (let i = 0; i < opts.steps; i++) sum += await step.run(`s${i}`, () => i);
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
  // A step that returns only when the benchmark lets it: it holds its worker, as a call to a
  // provider that never answers would (the stuck-workers measurement, in-process only).
  const gates: Array<() => void> = [];
  const hang = client.createFunction({ id: 'hang', retries: 0, triggers: [{ event: 'bench/hang' }] } as never, (async ({ step }: { step: Step }) =>
    step.run('hang', () => new Promise<string>((resolve) => gates.push(() => resolve('released'))))) as never);
  return {
    client,
    functions: [fn, sleeper, waiter, hang],
    /** Steps hanging now. */
    hanging: () => gates.length,
    /** Lets every hanging step return. */
    release: () => {
      for (const open of gates.splice(0)) open();
    },
  };
}
