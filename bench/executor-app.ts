// The app side of the executor benchmark in its own process: an Inngest serve endpoint over HTTP.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from 'inngest/node';
import { benchFunctions } from './executor-functions';

const { client, functions } = benchFunctions({ signingKey: process.env.SIGNING_KEY!, eventKey: process.env.EVENT_KEY!, ingressUrl: process.env.INGRESS_URL!, steps: Number(process.env.STEPS ?? 10) });
const app = http.createServer(serve({ client, functions }) as never);
app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(app.address() as AddressInfo).port}\n`));
