import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@/db/embedded';
import type { Database } from '@/db/client';
import { startMailCapture } from '@/server/mail/capture';
import { startNodes, type Node, type NodeSet } from '../deploy/nodes';
import { startHaproxy, type Haproxy } from '../helpers/haproxy';
import { startScriptedModel, type ModelRequest, type ScriptedModel, type ScriptedReply } from '../helpers/scripted-model';
import { startMailDns } from '../mail/loopback-dns';
import { startBrowserSite } from '../workspace/browser-site';

/**
 * The cluster test's world (spec document 6, Many machines): HAProxy in front of three npm start
 * processes on one PostgreSQL (API and inbound SMTP both through it), with what they talk to on
 * loopback: the scripted model (its answers chosen by markers in the conversation, so concurrent
 * work never takes another's script), a DNS server publishing SPF for example.com (the owners'
 * mail is proven), an SMTP capture for the mail Steward sends, a webhook receiver and a small
 * website for the workspace browser.
 */

export const MODEL = 'scripted-cluster';
const text = (messages: unknown[]) => JSON.stringify(messages);
const toolSteps = (r: ModelRequest) => r.messages.filter((m: any) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length).length;

/** What the model answers, by the marker in the conversation (see the load in scenario.ts). */
function answer(r: ModelRequest, world: { chatGate: Promise<void>; siteOrigin: string }): ScriptedReply | Promise<ScriptedReply> {
  const all = text(r.messages);
  // A task: a read-only tool first (a model call and a tool step), then done.
  if (all.includes('[cluster-task ')) {
    return toolSteps(r) === 0
      ? { toolCalls: [{ name: 'search_contacts', arguments: { query: 'bakery' } }], delayMs: 300 }
      : { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Done.' } }], delayMs: 300 };
  }
  // The handoff: the assistant asks the person to sign in, and finishes once they did.
  if (all.includes('[cluster-handoff]')) {
    return toolSteps(r) === 0
      ? { toolCalls: [{ name: 'request_handoff', arguments: { actionType: 'login', targetUrl: `${world.siteOrigin}/article`, prompt: 'Sign in, please' } }] }
      : { toolCalls: [{ name: 'complete_task', arguments: { summary: 'Signed in.' } }] };
  }
  // Chat streams: held until the kill has happened, so the kill lands in the middle of them.
  if (all.includes('[cluster-chat ')) return world.chatGate.then(() => ({ text: 'Monday: gym. Tuesday: dentist. Wednesday: rest.', chunkDelayMs: 20 }));
  return { text: 'Thank you, noted.' };
}

export type Webhook = { id: string; type: string; data: Record<string, unknown> };

export type ClusterWorld = {
  lb: { baseUrl: string; origin: string; database: Database };
  lbSmtpPort: number;
  haproxy: Haproxy;
  set: NodeSet;
  nodes: Node[];
  /** HAProxy's name of each process (steward-1 …), as X-Steward-Server says it. */
  nameOf: (n: Node) => string;
  llm: ScriptedModel;
  siteOrigin: string;
  sentMail: { to: string; subject: string; inReplyTo: string | null }[];
  webhooks: Webhook[];
  webhookUrl: string;
  releaseChats: () => void;
  stop: () => Promise<void>;
};

export async function startClusterWorld(database: { url: string; database: Database }, size = 3): Promise<ClusterWorld> {
  const stops: (() => Promise<unknown> | unknown)[] = [];
  try {
    let releaseChats!: () => void;
    const chatGate = new Promise<void>((r) => (releaseChats = r));
    const site = await startBrowserSite();
    stops.push(() => site.close());
    const llm = await startScriptedModel({ fallback: (r) => answer(r, { chatGate, siteOrigin: site.origin }) });
    stops.push(() => llm.close());
    const dns = await startMailDns();
    dns.publish('example.com', 'v=spf1 ip4:127.0.0.1 -all');
    stops.push(() => dns.close());
    const sentMail: ClusterWorld['sentMail'] = [];
    const capture = await startMailCapture((m) => sentMail.push({ to: m.to.join(', '), subject: m.subject, inReplyTo: /^in-reply-to:\s*(\S+)/im.exec(m.raw)?.[1] ?? null }));
    stops.push(() => capture.close());
    const webhooks: Webhook[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
        webhooks.push({ id: String(req.headers['webhook-id']), type: parsed.type, data: parsed.data });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise((r) => (receiver.closeAllConnections(), receiver.close(r))));

    const [lbPort, lbSmtpPort, ...smtpPorts] = await Promise.all(Array.from({ length: size + 2 }, () => freePort()));
    const origin = `http://127.0.0.1:${lbPort}`;
    const set = await startNodes(
      database,
      size,
      {
        // Links and session URLs name the load balancer, the one address people reach.
        STEWARD_PUBLIC_URL: origin,
        TRUST_PROXY: '1',
        STEWARD_EXECUTOR_LEASE_MS: '3000',
        STEWARD_MODEL_BASE_URL: llm.baseUrl,
        STEWARD_MODEL_MEDIUM: MODEL,
        RATE_LIMIT_READS_PER_MINUTE: '1000000',
        RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
        SMTP_URL: capture.url,
        DNS_SERVERS: dns.address,
        STEWARD_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
        STEWARD_INBOUND_SMTP_HOST: '127.0.0.1',
      },
      (i) => ({ STEWARD_INBOUND_SMTP_PORT: String(smtpPorts[i]) }),
    );
    stops.push(() => set.stop());
    const names = new Map(set.nodes.map((n, i) => [n, `steward-${i + 1}`]));
    const haproxy = await startHaproxy({
      bind: `127.0.0.1:${lbPort}`,
      smtpBind: `127.0.0.1:${lbSmtpPort}`,
      servers: set.nodes.map((n, i) => ({ name: names.get(n)!, host: '127.0.0.1', port: n.port, smtpPort: smtpPorts[i] })),
    });
    stops.push(() => haproxy.stop());
    for (const n of set.nodes) await haproxy.waitFor(names.get(n)!, 'UP', 'steward_smtp');
    return {
      lb: { baseUrl: `${origin}/api`, origin, database: database.database },
      lbSmtpPort: lbSmtpPort!,
      haproxy,
      set,
      nodes: set.nodes,
      nameOf: (n) => names.get(n)!,
      llm,
      siteOrigin: site.origin,
      sentMail,
      webhooks,
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      releaseChats,
      stop: async () => {
        for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
      },
    };
  } catch (e) {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
    throw e;
  }
}

export { toolSteps };
