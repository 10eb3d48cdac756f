import { chmod, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { egressProxy } from '../browser/egress-proxy';
import { runtimeDir } from './system-view';

/*
 * The sandbox's one way out: a Unix socket, mounted into the sandbox, whose every connection is
 * handed to the workspace's egress proxy (browser/egress-proxy.ts). That proxy resolves each
 * host itself and connects only to addresses the workspace's rule accepts (url-guard.ts, the
 * kernel's address-rules.ts): no loopback, private, link-local or metadata address unless
 * STEWARD_WORKSPACE_ALLOW_PRIVATE allows it. The sandbox's network namespace has no route
 * anywhere else, so a program that ignores HTTP_PROXY reaches nothing.
 */

export type Relay = { socketPath: string; close: () => Promise<void> };

export async function startRelay(key: string): Promise<Relay> {
  const { sockets } = await runtimeDir();
  const socketPath = path.join(sockets, `${key}.sock`);
  await rm(socketPath, { force: true });
  const proxy = await egressProxy();
  const { port } = new URL(proxy.url);
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    const upstream = net.connect(Number(port), '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  server.unref();
  // The sandbox's user may be another host user than Steward's: it must be able to connect.
  await chmod(socketPath, 0o666);
  return {
    socketPath,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      await rm(socketPath, { force: true });
    },
  };
}
