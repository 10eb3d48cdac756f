/**
 * The floor under `executor.wakeLatenessP99Ms`: how long the pinned Inngest SDK's execution engine
 * alone takes to resume N sleeping runs in this process. Nothing else runs: no call is parsed or
 * signed, no HTTP or in-process request is made, no checkpoint is sent, the database is not read
 * or written; each resumption is one execution of the bench's sleeper with its sleep memoised,
 * which runs the step after the sleep and stops there (a real wake-up then still has to store
 * that step and end the run). Whatever the engine around it does, a process cannot resume runs
 * faster than this, and several processes only divide it by the cores they get.
 *
 * The execution is created as the SDK's serve handler creates it once it has parsed and checked a
 * call (the function's `createExecution`, minus checkpointing); the first resumption is
 * checked to have run the step after the sleep, so the figure cannot come from executions that
 * did something else (a memo key the SDK did not recognise would make it report the sleep again).
 */
import { createHash } from 'node:crypto';
import { plainProcessEnv } from '../server/process-env';
import { benchFunctions } from './executor-functions';

type Execution = { start: () => Promise<{ type: string; step?: { displayName?: string; op?: string } }> };
type Creatable = { createExecution: (o: { partialOptions: Record<string, unknown> }) => Execution; client: unknown };

/** The SDK's memo key for a step id (its `hashId`: SHA-1, hex). */
const hashed = (id: string) => createHash('sha1').update(id).digest('hex');

/** Milliseconds for `n` resumptions, `inFlight` at a time (as a pool of workers keeps calls in flight). */
export async function measureSdkWakeFloor(n: number, inFlight: number): Promise<{ ms: number; perResumptionMs: number }> {
  plainProcessEnv(); // as npm start does
  const refuse = (async () => {
    throw new Error('the floor measurement sends nothing');
  }) as unknown as typeof fetch;
  const { functions } = benchFunctions({ signingKey: `signkey-bench-${'ab'.repeat(32)}`, eventKey: 'floor', ingressUrl: 'http://127.0.0.1:9', steps: 1, fetch: refuse });
  const sleeper = functions[1] as unknown as Creatable;
  const event = { name: 'bench/sleep', data: { at: new Date().toISOString() }, id: 'floor', ts: Date.now() };
  const nap = hashed('nap');
  const resume = (i: number) =>
    sleeper
      .createExecution({
        partialOptions: {
          client: sleeper.client,
          runId: `floor-${i}`,
          stepMode: 'async',
          data: { event, events: [event], runId: `floor-${i}`, attempt: 0, maxAttempts: 4 },
          stepState: { [nap]: { id: nap, data: null } },
          stepCompletionOrder: [nap],
          headers: {},
          reqArgs: [],
          requestStartedAt: Date.now(),
        },
      })
      .start();
  const first = await resume(0);
  if (first.type !== 'step-ran' || first.step?.displayName !== 'woke') {
    throw new Error(`the sleeper's resumption did not run the step after its sleep (${first.type} ${first.step?.op ?? ''} ${first.step?.displayName ?? ''})`);
  }
  const waves = async (count: number) => {
    for (let i = 0; i < count; i += inFlight) await Promise.all(Array.from({ length: Math.min(inFlight, count - i) }, (_, j) => resume(i + j)));
  };
  await waves(Math.min(n, 1000)); // warm-up, not measured
  const t0 = performance.now();
  await waves(n);
  const ms = performance.now() - t0;
  return { ms: Math.round(ms), perResumptionMs: Number((ms / n).toFixed(3)) };
}
