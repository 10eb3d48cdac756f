// The app side and the executor in one process, as npm start runs them, for the crash test: killed with SIGKILL mid-call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inngest } from 'inngest';
import { serve } from 'inngest/node';
import { connect } from '../../db/client';
import { startExecutor } from '../../server/executor/executor';
import { startIngress } from '../../server/executor/ingress';

const database = connect(process.env.DATABASE_URL!, { max: 4 });
const signingKey = process.env.SIGNING_KEY!;
const eventKey = process.env.EVENT_KEY!;
const ingress = await startIngress({ db: database.db, signingKey, eventKey });
const client = new Inngest({ id: 'crash', isDev: false, checkpointing: true, signingKey, eventKey, baseUrl: ingress.url } as never);
type Ctx = { step: { run: (id: string, f: () => Promise<string>) => Promise<string> }; runId: string };
const fn = client.createFunction({ id: 'batch', retries: 0, triggers: [{ event: 'c/batch' }] } as never, (async ({ step, runId }: Ctx) => {
  for (const s of ['s0', 's1', 's2', 's3', 's4', 's5']) {
    await step.run(s, async () => {
      await database.pool.query('INSERT INTO crash_effects (run_id, step, pid) VALUES ($1, $2, $3)', [runId, s, process.pid]);
      // The step in flight when the test kills this process.
      if (s === process.env.HANG_AT) await new Promise(() => {});
      return s;
    });
  }
  return 'done';
}) as never);
const handler = serve({ client, functions: [fn] }) as unknown as http.RequestListener;
const app = http.createServer((req, res) => {
  if (req.method === 'POST') void database.pool.query('INSERT INTO crash_calls (pid) VALUES ($1)', [process.pid]);
  return handler(req, res);
});
await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
await fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`, { method: 'PUT' });
await startExecutor({ db: database.db, databaseUrl: process.env.DATABASE_URL!, signingKey, leaseMs: Number(process.env.LEASE_MS ?? 1000), workers: 2, idleMs: 100 });
process.stdout.write('ready\n');
