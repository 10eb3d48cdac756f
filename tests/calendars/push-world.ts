import { afterAll, beforeAll } from 'vitest';
import { useRunHarness } from '../agent/run-harness';
import { startGraphCalendarFake, type GraphCalendarFake } from '../helpers/graph-calendar-fake';
import { startGraphFake, type GraphFake } from '../helpers/graph-fake';
import { useCalendarStandIns } from './stand-ins';

/*
 * The world of the provider push tests (push.int.test.ts, push-stop.int.test.ts): the run harness
 * (the engine runs the pushed syncs), the Google and CalDAV stand-ins, the Graph calendar stand-in
 * over the Graph mail one, and a switch that makes the deployment's public URL https, with the
 * stand-ins' pushes to that origin routed to the test server as the deployment's TLS proxy would.
 */

const HOUR = 3_600_000;
const GRAPH_ENV = ['MICROSOFT_CLIENT_ID', 'MICROSOFT_CLIENT_SECRET', 'STEWARD_MICROSOFT_LOGIN_URL', 'STEWARD_GRAPH_API_URL', 'MICROSOFT_TENANT'];

export function usePushWorld(publicOrigin: string) {
  const h = useRunHarness();
  const providers = useCalendarStandIns();
  let mail: GraphFake | undefined;
  let graph: GraphCalendarFake | undefined;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    mail = await startGraphFake();
    graph = await startGraphCalendarFake({ mail });
    for (const k of [...GRAPH_ENV, 'STEWARD_PUBLIC_URL']) saved[k] = process.env[k];
    Object.assign(process.env, graph.env);
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await graph?.close();
    await mail?.close();
  });

  return {
    h,
    app: h.app,
    until: h.until,
    db: () => h.db(),
    providers,
    graph: () => graph!,
    mail: () => mail!,
    /** The start of the hour `n` hours from now. */
    inHours: (n: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR + n * HOUR),
    /** The public URL is https from here on (connecting went through the test server's own URL). */
    httpsFromNow() {
      process.env.STEWARD_PUBLIC_URL = publicOrigin;
      const listening = new URL(h.app().baseUrl).origin;
      providers.gcal.routePush(publicOrigin, listening);
      graph!.routePush(publicOrigin, listening);
    },
    httpAgain() {
      if (saved.STEWARD_PUBLIC_URL === undefined) delete process.env.STEWARD_PUBLIC_URL;
      else process.env.STEWARD_PUBLIC_URL = saved.STEWARD_PUBLIC_URL;
    },
  };
}
