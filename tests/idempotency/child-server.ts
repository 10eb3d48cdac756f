// A second Steward process for the lease test: the production request path (kernel over the lean
// node:http server) on the test's database. Started with node --import tsx, killed with SIGKILL.
import type { AddressInfo } from 'node:net';
import { connect } from '@/db/client';
import { credentials } from '@/server/credentials';
import { composeServices } from '@/server/compose';
import { endpoints } from '@/server/endpoints';
import { createApiCore } from '@/server/http/kernel';
import { createKernelDeps } from '@/server/http/kernel-deps';
import { createNodeServer } from '@/server/http/node-server';

composeServices();

const database = connect(process.env.DATABASE_URL!);
const kernel = createKernelDeps(database, credentials);
kernel.rateLimits.defaults = { reads: 1_000_000, writes: 1_000_000, failedAuth: 1_000_000 };
const server = createNodeServer(createApiCore(endpoints, kernel), {});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`));
