import { describe, expect, it } from 'vitest';
import { claimsNode, nodeLinkConfig, signNodeCall, verifyNodeCall } from '@/server/http/node-link';

/** STEWARD_NODE_URL and STEWARD_NODE_SECRET (spec document 6, Many machines): the configuration and the signature of calls between processes. */
describe('calls between processes', () => {
  const secret = 'a-secret-of-at-least-thirty-two-characters!';

  it('takes part only with STEWARD_NODE_URL, and never without a usable secret', () => {
    expect(nodeLinkConfig({})).toBeNull();
    expect(nodeLinkConfig({ STEWARD_NODE_URL: '  ' })).toBeNull();
    expect(nodeLinkConfig({ STEWARD_NODE_URL: 'http://10.0.0.5:3000/', STEWARD_NODE_SECRET: secret })).toEqual({ url: 'http://10.0.0.5:3000', secret });
    expect(() => nodeLinkConfig({ STEWARD_NODE_URL: 'http://10.0.0.5:3000' })).toThrow(/STEWARD_NODE_SECRET/);
    expect(() => nodeLinkConfig({ STEWARD_NODE_URL: 'http://10.0.0.5:3000', STEWARD_NODE_SECRET: 'short' })).toThrow(/32 characters/);
    expect(() => nodeLinkConfig({ STEWARD_NODE_URL: 'not a url', STEWARD_NODE_SECRET: secret })).toThrow(/not a URL/);
    expect(() => nodeLinkConfig({ STEWARD_NODE_URL: 'ftp://10.0.0.5', STEWARD_NODE_SECRET: secret })).toThrow(/http or https/);
  });

  it('accepts a call signed with the secret within a minute, and nothing changed in it', () => {
    const now = Date.now();
    const sig = signNodeCall(secret, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now);
    expect(verifyNodeCall(secret, sig, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now)).toBe(true);
    expect(verifyNodeCall(secret, sig, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now + 59_000)).toBe(true);
    expect(verifyNodeCall(secret, sig, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now + 61_000)).toBe(false);
    expect(verifyNodeCall(secret, sig, 'POST', '/_steward/node/workspace', '{"op":"cleanup"}', now)).toBe(false);
    expect(verifyNodeCall(secret, sig, 'POST', '/_steward/node/ping', '{"op":"watch"}', now)).toBe(false);
    expect(verifyNodeCall(secret, sig, 'GET', '/_steward/node/workspace', '{"op":"watch"}', now)).toBe(false);
    expect(verifyNodeCall(`${secret}x`, sig, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now)).toBe(false);
    const flipped = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
    for (const bad of [null, undefined, '', 't=1', `t=${Math.floor(now / 1000)},v1=zz`, flipped]) {
      expect(verifyNodeCall(secret, bad, 'POST', '/_steward/node/workspace', '{"op":"watch"}', now)).toBe(false);
    }
  });

  it('sees any X-Steward-Node-* header as a claim to be a process', () => {
    expect(claimsNode({ 'x-steward-node-signature': 'x' })).toBe(true);
    expect(claimsNode({ 'x-steward-node-anything': 'x' })).toBe(true);
    expect(claimsNode(new Headers({ 'X-Steward-Node-Hop': '1' }))).toBe(true);
    expect(claimsNode({ authorization: 'Bearer x' })).toBe(false);
  });
});
