import { createHash } from 'node:crypto';
import { Inngest } from 'inngest';
import { describe, expect, it } from 'vitest';
import { localServe } from '@/server/executor/local-serve';
import { registerLocal } from '@/server/executor/local-transport';
import { callFunction, type CallInput } from '@/server/executor/protocol';
import { eventKey, signingKey } from './harness';

/**
 * The executor's calls say version -1 ("the SDK decides", protocol.ts) and accept only answers the
 * SDK ran as version 2, the protocol the executor speaks: an SDK upgrade that prefers another
 * version fails the first test instead of being driven with the wrong rules.
 */
const origin = 'http://127.0.0.1:9'; // never dialled: answered in-process
/** The SDK names a step in the memo by the SHA-1 of its id. */
const first = createHash('sha1').update('first').digest('hex');
const call = (url: string): CallInput => ({
  url,
  functionId: 'version-echo',
  stepId: 'step',
  signingKey,
  event: { name: 'version/go', data: { n: 2 } },
  steps: { [first]: { type: 'data', data: 20 } },
  stack: [first],
  runId: 'run-version',
  attempt: 0,
  maxAttempts: 1,
  disableImmediateExecution: false,
});

describe('the protocol version of a call', () => {
  it('leaves the choice to the pinned SDK, which runs version 2 and replays the memo', async () => {
    const client = new Inngest({ id: 'version', isDev: false, signingKey, eventKey, baseUrl: `${origin}/ingress` } as never);
    type Step = { run: <T>(id: string, f: () => T) => Promise<T> };
    const fn = client.createFunction({ id: 'echo', triggers: [{ event: 'version/go' }] } as never, (async ({ step, event }: { step: Step; event: { data: { n: number } } }) => {
      const first = await step.run('first', () => 1);
      return first + event.data.n;
    }) as never);
    const undo = registerLocal(`${origin}/api/inngest`, localServe({ client, functions: [fn], serveOrigin: origin, servePath: '/api/inngest' }));
    try {
      // The memoised 20, not the step's own 1: the SDK read the memo, and its answer passed the version check.
      expect(await callFunction(call(`${origin}/api/inngest`))).toEqual({ kind: 'done', output: 22 });
    } finally {
      undo();
    }
  });

  it('fails, without retries, an answer the SDK ran with another version', async () => {
    const undo = registerLocal(`${origin}/other`, async () => new Response('"done"', { status: 200, headers: { 'x-inngest-req-version': '1' } }));
    try {
      const res = await callFunction(call(`${origin}/other`));
      expect(res).toMatchObject({ kind: 'error', retriable: false, error: { name: 'UnsupportedProtocolVersion' } });
    } finally {
      undo();
    }
  });
});
