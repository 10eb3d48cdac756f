import { expect, it } from 'vitest';
import { routeAfterAnswer } from '@/server/messaging/after-answer';

/** A job the test finishes by hand: whether it started, and the way to end it. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  const job = { started: false, finish: () => open(), run: async () => { job.started = true; await done; } };
  return job;
}

const tick = () => new Promise((r) => setImmediate(r));

it('routes after the answer, four at a time, the next as soon as one ends, and a failing job does not stop the rest', async () => {
  const jobs = Array.from({ length: 6 }, gate);
  const failing = { ran: false };
  routeAfterAnswer(async () => {
    failing.ran = true;
    throw new Error('routing failed');
  });
  for (const j of jobs) routeAfterAnswer(j.run);
  // Nothing runs before the answer is on its way (the caller's turn ends first).
  expect(failing.ran).toBe(false);
  await tick();
  await tick();
  // The failing job ran and freed its place: four of the six gated jobs run, two wait.
  expect(failing.ran).toBe(true);
  expect(jobs.map((j) => j.started)).toEqual([true, true, true, true, false, false]);
  jobs[1]!.finish();
  await tick();
  await tick();
  expect(jobs.map((j) => j.started)).toEqual([true, true, true, true, true, false]);
  for (const j of jobs) j.finish();
  await tick();
  await tick();
  expect(jobs.every((j) => j.started)).toBe(true);
});
