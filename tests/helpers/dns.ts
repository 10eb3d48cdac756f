import dns2 from 'dns2';

/** A real DNS server on loopback answering TXT queries from a table the test fills in (or from `lookup`). */
export async function startTxtServer(lookup?: (name: string) => string[]) {
  const records = new Map<string, string[]>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      for (const q of request.questions) {
        for (const value of lookup ? lookup(q.name.toLowerCase()) : (records.get(q.name.toLowerCase()) ?? [])) {
          response.answers.push({ name: q.name, type: dns2.Packet.TYPE.TXT, class: dns2.Packet.CLASS.IN, ttl: 1, data: value } as unknown as Parameters<typeof response.answers.push>[0]);
        }
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (addresses as unknown as { udp: { port: number } }).udp.port;
  return {
    address: `127.0.0.1:${port}`,
    publish: (name: string, value: string) => records.set(name.toLowerCase(), [...(records.get(name.toLowerCase()) ?? []), value]),
    close: () => server.close(),
  };
}
