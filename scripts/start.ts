/**
 * `npm start`: the product on embedded defaults. Picks the database (DATABASE_URL, or an
 * embedded PostgreSQL under .data/postgres), applies migrations, builds once if needed,
 * then serves /api (Inngest's serve endpoint included) on the lean kernel path in this process
 * and Next.js (pages, tRPC, auth) in a child process behind it: Next's process-wide hooks stay
 * out of the API's way. STEWARD_HTTP=next serves everything through Next in this process
 * instead; `--dev` runs Next in development mode in this process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { connect, sharedDatabase } from '../db/client';
import { applyMigrations } from '../db/migrate';
import { credentials } from '../server/credentials';
import { endpoints } from '../server/endpoints';
import { composeRuntime } from '../server/compose';
import { createApiCore } from '../server/http/kernel';
import { createKernelDeps } from '../server/http/kernel-deps';
import { createNodeServer, serveWebHandler, type WebHandler } from '../server/http/node-server';
import { NODE_PATH } from '../server/http/node-link';
import { proxyTo } from '../server/http/proxy';
import { freePort } from '../db/embedded';
import { logger } from '../server/logger';
import { SERVE_PATH, ensureExecutorKeys, inngestServeUrl, loopbackServeUrl, usesInngestServer } from '../server/executor/config';
import { startExecutor } from '../server/executor/executor';
import { stepDeadlines } from '../inngest/step-deadlines';
import { cronSpread } from '../inngest/cron-spread';
import { startIngress } from '../server/executor/ingress';
import { registerLocal } from '../server/executor/local-transport';
import { signBody } from '../server/executor/protocol';
import { applyFront } from '../server/http/forwarded';
import { publicOrigin } from '../server/http/public-origin';
import { startTracing } from '../server/http/tracing';
import { plainProcessEnv } from '../server/process-env';
import { selectDatabase } from './database';

const dev = process.argv.includes('--dev');
const root = path.resolve(import.meta.dirname, '..');
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const mode = process.env.STEWARD_HTTP === 'next' ? 'next' : 'lean';
/**
 * STEWARD_PAGES=off serves the API alone (lean path, no Next.js build or process): for API-only
 * deployments, and for tests and benchmarks that start the real server and need only /api.
 */
const pages = !(mode === 'lean' && !dev && process.env.STEWARD_PAGES === 'off');

/** A build is needed when there is none, or a source file is newer than it. */
function needsBuild(): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const newer = (p: string): boolean => {
    const s = statSync(p);
    if (s.isDirectory()) return readdirSync(p).some((n) => newer(path.join(p, n)));
    return s.mtimeMs > built;
  };
  return ['app', 'server', 'db', 'next.config.ts', 'package.json'].some((p) => existsSync(path.join(root, p)) && newer(path.join(root, p)));
}

/**
 * Keys, the loopback ingress the SDK registers with and sends events to, and the executor
 * that drives runs through /api/inngest. The env vars are set before any Inngest client loads.
 */
async function startDurableWork(databaseUrl: string) {
  const { db } = sharedDatabase();
  const { signingKey, eventKey } = await ensureExecutorKeys(db);
  process.env.INNGEST_SIGNING_KEY = signingKey;
  process.env.INNGEST_EVENT_KEY = eventKey;
  // The ingress gets connections of its own: a request transaction may wait on it (a cart's
  // release is sent from inside the transaction that releases it), and must never wait for a
  // connection that other requests, queued behind that transaction's lock, hold.
  const ingressDatabase = connect(databaseUrl, { max: 4 });
  const ingress = await startIngress({ db: ingressDatabase.db, signingKey, eventKey, port: Number(process.env.STEWARD_EXECUTOR_PORT ?? 0), serveUrl: inngestServeUrl(), cronSpread });
  process.env.STEWARD_EXECUTOR_URL = ingress.url;
  // This process's SDK reaches its ingress in-process (server/executor/local-transport.ts).
  registerLocal(ingress.url, ingress.handle);
  let executor: Awaited<ReturnType<typeof startExecutor>> | undefined;
  return {
    /**
     * Starts claiming runs, once /api/inngest answers: a run claimed before would fail its call and
     * spend an attempt. STEWARD_EXECUTOR_LEASE_MS: how long a crashed process's runs wait before
     * another process takes them over.
     */
    begin: async () => {
      executor = await startExecutor({
        db,
        databaseUrl,
        signingKey,
        serveUrl: inngestServeUrl(),
        leaseMs: Number(process.env.STEWARD_EXECUTOR_LEASE_MS) || undefined,
        workers: Number(process.env.STEWARD_EXECUTOR_WORKERS) || undefined,
        // The same step deadlines the functions' middleware holds them to (inngest/client.ts).
        deadlines: stepDeadlines,
        // The sweeps spread over the minute's first seconds, what people scheduled on the minute.
        cronSpread,
      });
    },
    /** In-flight steps get `deadlineMs` to finish; the runs still held then go back to the queue, due now. */
    stop: async (deadlineMs: number) => {
      await executor?.stop({ deadlineMs });
      await ingress.close();
      await ingressDatabase.close();
    },
  };
}

/**
 * A PUT on the serve endpoint makes the SDK register its functions (with the executor or the
 * Inngest server) at the pinned serve URL. The SDK accepts only a signed PUT: signed like the
 * executor's calls, over an empty body.
 */
async function registerFunctions(port: number) {
  const signingKey = process.env.INNGEST_SIGNING_KEY;
  if (!signingKey) {
    logger.warn('INNGEST_SIGNING_KEY is not set: the functions cannot be registered');
    return;
  }
  try {
    const signature = signBody('', signingKey, Math.floor(Date.now() / 1000));
    const res = await fetch(loopbackServeUrl(port, host), { method: 'PUT', headers: { 'X-Inngest-Signature': signature } });
    if (res.ok) logger.info({ serveUrl: inngestServeUrl() }, 'Inngest functions registered');
    else logger.warn({ status: res.status, body: (await res.text()).slice(0, 500) }, 'Inngest function registration was refused');
  } catch (err) {
    logger.warn({ err }, 'Inngest function registration failed');
  }
}

/** `next start` on a loopback port, with this process's environment (database, keys, mail). */
function startNextChild(nextPort: number): ChildProcess {
  const bin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  return spawn(process.execPath, [bin, 'start', '--port', String(nextPort), '--hostname', '127.0.0.1'], {
    cwd: root,
    // PORT changes for the child, so the public origin decided here goes along explicitly.
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', PORT: String(nextPort), STEWARD_PUBLIC_URL: publicOrigin().origin },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitForChild(child: ChildProcess, nextPort: number) {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${nextPort}/sign-in`, { method: 'HEAD' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error('next start did not answer within 120 s');
}

let shuttingDown = false;

async function stopChild(child: ChildProcess) {
  shuttingDown = true;
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

async function main() {
  // Before anything reads the environment per request (server/process-env.ts says why).
  plainProcessEnv();
  // Every seam filled once, here (server/compose): what this process runs is read in one place.
  composeRuntime();
  // Decided once, before anything serves: a malformed STEWARD_PUBLIC_URL stops here, and every
  // process started from here (the Next.js child, whose PORT differs) uses the same serve URL.
  const origin = publicOrigin();
  // Traces only when OTEL_* asks for them (server/http/tracing.ts); before the database is opened.
  const stopTracing = await startTracing();
  process.env.STEWARD_INNGEST_SERVE_URL = inngestServeUrl();
  const selected = await selectDatabase((m) => logger.info(m));
  process.env.DATABASE_URL = selected.url;
  await applyMigrations(selected.url);
  logger.info({ embedded: selected.embedded }, 'database ready, migrations applied');

  if (pages && !dev && needsBuild()) {
    logger.info('no production build, or sources changed since it: running next build');
    const build = spawnSync('npx', ['next', 'build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    if (build.status !== 0) throw new Error('next build failed');
  }

  // Development without SMTP_URL: a local SMTP server captures outgoing mail and logs it (sign-in links included).
  if (dev && !process.env.SMTP_URL) {
    const { startMailCapture } = await import('../server/mail/capture');
    const capture = await startMailCapture((m) => logger.info({ to: m.to, subject: m.subject, text: m.text }, 'mail captured by the local SMTP server (development)'));
    process.env.SMTP_URL = capture.url;
    logger.info({ smtp: capture.url }, 'development mail goes to a local SMTP capture');
  }

  // Durable work: the built-in executor unless an Inngest server is configured.
  const durable = usesInngestServer() ? null : await startDurableWork(selected.url);
  // Inbound mail, on like every other part of the product (STEWARD_INBOUND_SMTP_PORT, default 2525; `off`
  // turns it off): the owner's mail is answered, replies wake the tasks waiting on them. A port another
  // process holds is logged and the rest of the product runs on.
  if (process.env.STEWARD_INBOUND_SMTP_PORT === undefined) process.env.STEWARD_INBOUND_SMTP_PORT = '2525';
  const inboundOff = ['off', 'false', ''].includes(process.env.STEWARD_INBOUND_SMTP_PORT.trim().toLowerCase());
  const inbound = inboundOff
    ? null
    : await (await import('../server/messaging/inbound-mail')).startInboundMail(sharedDatabase().db).catch((err: unknown) => {
        logger.error({ err, port: process.env.STEWARD_INBOUND_SMTP_PORT }, 'inbound mail: the SMTP listener could not start; set STEWARD_INBOUND_SMTP_PORT to a free port, or off');
        return null;
      });

  // Slack and Teams approval cards and events whose routing was cut short: posted and routed again
  // from the start, not only after this process's first Slack or Teams request (STEWARD_CHANNEL_SWEEP_MS=off stops it).
  (await import('../server/messaging/channel-work')).startChannelWork(sharedDatabase().db);

  const kernel = createKernelDeps(sharedDatabase(), credentials);
  // On the lean path Inngest's serve endpoint answers in this process like every other /api route
  // (with STEWARD_HTTP=next, its route file does). Imported only now: the Inngest client reads the
  // keys and the ingress URL set above when it loads.
  const mounts: Record<string, WebHandler> = {};
  if (mode === 'lean') {
    const { inngestServeHandler, inngestLocalServeHandler } = await import('../inngest/serve');
    const serveFunctions = inngestServeHandler(() => kernel.rateLimits);
    mounts[SERVE_PATH] = (req, info) => serveFunctions(req, info.clientIp);
    // The executor's calls to this process's own serve endpoint are answered in-process.
    if (!usesInngestServer()) {
      const serveOwnCalls = inngestLocalServeHandler(() => kernel.rateLimits);
      registerLocal(inngestServeUrl(), (req) => serveOwnCalls(req, '127.0.0.1'));
    }
  }
  // With STEWARD_NODE_URL this process is one node of several: it publishes its address and serves
  // the signed calls of the others (the workspace follows its user: server/workspace/nodes/).
  const workspaceNode = await (await import('../server/workspace/nodes/serve')).startWorkspaceNode();
  if (workspaceNode) mounts[NODE_PATH] = (req) => workspaceNode.serve(req);
  let server: http.Server;
  let closeNext: () => Promise<void>;
  if (!pages) {
    server = createNodeServer(createApiCore(endpoints, kernel), { mounts });
    closeNext = async () => {};
  } else if (mode === 'lean' && !dev) {
    // Next in its own process on a loopback port; this process answers /api and forwards the rest.
    const nextPort = await freePort();
    const child = startNextChild(nextPort);
    await waitForChild(child, nextPort);
    child.once('exit', (code) => {
      if (shuttingDown) return;
      logger.error({ code }, 'the Next.js process exited; stopping so a supervisor can restart Steward');
      process.exit(1);
    });
    server = createNodeServer(createApiCore(endpoints, kernel), { fallback: proxyTo(nextPort), mounts });
    closeNext = () => stopChild(child);
  } else {
    const { default: next } = await import('next');
    const app = next({ dev, dir: root, hostname: 'localhost', port });
    await app.prepare();
    const nextHandler = app.getRequestHandler();
    // In `next` mode every request (including /api) goes to Next's route files.
    // Next sees Steward's decision about host, scheme and client address, as the child process does.
    const toNext = (req: http.IncomingMessage, res: http.ServerResponse) => {
      applyFront(req, res);
      return nextHandler(req, res);
    };
    const nodeCalls = workspaceNode ? serveWebHandler(workspaceNode.serve) : null;
    server =
      mode === 'lean'
        ? createNodeServer(createApiCore(endpoints, kernel), { fallback: toNext, mounts })
        : http.createServer((req, res) => void (nodeCalls && req.url?.startsWith(NODE_PATH + '/') ? nodeCalls(req, res) : toNext(req, res)));
    closeNext = async () => void (await app.close?.());
  }
  // An idle keep-alive connection stays open longer than a balancer or a client keeps its side
  // (HAProxy's `timeout http-keep-alive`, a cloud balancer's 60 s idle timeout, undici's 4 s):
  // with Node's default of 5 s the server could close a connection just as a request was sent on
  // it, and the sender saw a reset (a 502 behind a balancer). The side that closes is the client's.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // The handoff live view's WebSocket (/api/workspace/live/{handoffId}), in every mode.
  (await import('../server/workspace/live/attach')).attachWorkspaceLive(server, sharedDatabase().db);
  // Twilio's media streams of live calls (/api/channels/twilio/media), in every mode (issue 48).
  (await import('../server/messaging/voice-media')).attachVoiceMedia(server, sharedDatabase().db);
  // The chat page's live voice (/api/chats/{chatId}/voice/live), in every mode (issue 48).
  (await import('../server/chats/live-voice-attach')).attachChatLiveVoice(server, sharedDatabase().db);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const url = origin.origin;
  logger.info({ url, api: `${url}/api`, mode, dev, durable: durable ? 'built-in executor' : 'inngest server' }, 'Steward is running');
  await registerFunctions(port);
  await durable?.begin();
  process.stdout.write(`\nSteward is running at ${url} (API: ${url}/api, reference: ${url}/docs)\n\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    shuttingDown = true;
    logger.info({ signal }, 'stopping');
    // Durable work first, while /api/inngest still answers: no new run is claimed, steps in flight
    // get STEWARD_SHUTDOWN_MS to finish, and the runs still held then are handed back (no lease wait).
    await durable?.stop(Number(process.env.STEWARD_SHUTDOWN_MS) || 10_000);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await inbound?.close();
    (await import('../server/messaging/channel-work')).stopChannelWork(sharedDatabase().db);
    // Users' browsers record their last activity on the way out: before the database closes.
    await (await import('../server/workspace/browser/manager')).stopAllWorkspaces();
    await (await import('../server/workspace/shell/manager')).stopAllSandboxes();
    await workspaceNode?.stop();
    await kernel.lastUsed.flush();
    // Model calls' settlements still on their way (server/budgets/settle-later.ts).
    await (await import('../server/budgets/settle-later')).allCallsSettled();
    await stopTracing?.();
    await sharedDatabase().close();
    await closeNext();
    await selected.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  logger.error({ err: e }, 'failed to start');
  process.exit(1);
});
