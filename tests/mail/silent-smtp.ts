import net, { type AddressInfo, type Socket } from 'node:net';

/*
 * SMTP servers that stop answering, for the timeout tests (issue 49): what a client meets when a
 * server accepts a connection and then says nothing, or goes away without closing its connections
 * (a container removed, a network cut): no FIN, no RST, only silence.
 */

/** Accepts connections and never says a word (no greeting, no answer, no close). */
export async function startSilentServer() {
  const held = new Set<Socket>();
  const server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    connections: () => held.size,
    close: () => {
      for (const s of held) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A TCP relay to a real SMTP server that can go silent: `silence()` drops every byte both ways on
 * the connections open now (they stay open on both ends, as a vanished server's would) and holds
 * new ones without a greeting; `speak()` relays new connections again.
 */
export async function startSilenceableRelay(targetPort: number) {
  const pairs = new Set<{ client: Socket; upstream: Socket; muted: boolean }>();
  const held = new Set<Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (silent) {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    const pair = { client, upstream, muted: false };
    pairs.add(pair);
    upstream.on('error', () => {});
    client.on('data', (d) => void (pair.muted || upstream.write(d)));
    upstream.on('data', (d) => void (pair.muted || client.write(d)));
    // While muted, neither side learns that the other went away.
    client.on('close', () => {
      pairs.delete(pair);
      if (!pair.muted) upstream.destroy();
    });
    upstream.on('close', () => void (pair.muted || client.destroy()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** Connections relayed so far and still open. */
    open: () => pairs.size,
    silence: () => {
      silent = true;
      for (const p of pairs) p.muted = true;
    },
    speak: () => void (silent = false),
    close: () => {
      for (const p of pairs) (p.client.destroy(), p.upstream.destroy());
      for (const s of held) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
