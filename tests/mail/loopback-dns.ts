import dns2 from 'dns2';

/**
 * A real DNS server on loopback for mail authentication: it answers TXT questions from a table
 * the test fills in (SPF, DKIM keys, DMARC policies) and every other question with no records,
 * as a zone without them would. Long values (DKIM keys) go out as 255-byte character-strings.
 */
export async function startMailDns() {
  const records = new Map<string, string[]>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      for (const q of request.questions) {
        if ((q as { type?: number }).type !== dns2.Packet.TYPE.TXT) continue;
        for (const value of records.get(q.name.toLowerCase()) ?? []) {
          const data = value.match(/.{1,255}/gs) ?? [''];
          response.answers.push({ name: q.name, type: dns2.Packet.TYPE.TXT, class: dns2.Packet.CLASS.IN, ttl: 1, data } as unknown as Parameters<typeof response.answers.push>[0]);
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
