// The app side of the executor benchmark in its own process: an Inngest serve endpoint over HTTP,
// in a process set up as npm start sets up Steward's (a plain process.env, server/process-env.ts)
// and with Steward's transport for the SDK's own requests (local-transport.ts, which sends what
// leaves the process through wire-fetch.ts), so the figure is the one a deployment would see.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from 'inngest/node';
import { localFetch } from '../server/executor/local-transport';
import { plainProcessEnv } from '../server/process-env';
import { benchFunctions } from './executor-functions';

plainProcessEnv();
const { client, functions } = benchFunctions({
  signingKey: process.env.SIGNING_KEY!,
  eventKey: process.env.EVENT_KEY!,
  ingressUrl: process.env.INGRESS_URL!,
  steps: Number(process.env.STEPS ?? 10),
  fetch: localFetch,
});
const app = http.createServer(serve({ client, functions }) as never);
app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(app.address() as AddressInfo).port}\n`));
