import { afterEach, describe, expect, it, vi } from 'vitest';
import { addressProblem } from '@/server/http/address-rules';

/*
 * The outbound address rule (server/http/address-rules.ts) on its own: IPv6 spellings that carry
 * an IPv4 address are judged as that address, so a loopback, private or metadata address cannot
 * be reached by writing it as IPv4-compatible (::/96), IPv4-mapped, IPv4-translated or 6to4 (2002::/16).
 */

const VAR = 'STEWARD_TEST_ALLOWED_RANGES';
const codeOf = (address: string) => addressProblem(address, VAR)?.code ?? 'ok';

afterEach(() => vi.unstubAllEnvs());

describe('the outbound address rule', () => {
  it('refuses IPv4 loopback, private and metadata addresses and accepts public ones', () => {
    expect(codeOf('127.0.0.1')).toBe('private');
    expect(codeOf('10.1.2.3')).toBe('private');
    expect(codeOf('169.254.169.254')).toBe('metadata');
    expect(codeOf('93.184.215.14')).toBe('ok');
    expect(codeOf('not-an-address')).toBe('invalid');
  });

  it('judges IPv4-compatible ::a.b.c.d (::/96) as the IPv4 address it carries', () => {
    expect(codeOf('::127.0.0.1')).toBe('private');
    expect(codeOf('::7f00:1')).toBe('private');
    expect(codeOf('0:0:0:0:0:0:a00:1')).toBe('private');
    expect(codeOf('[::10.0.0.1]')).toBe('private');
    expect(codeOf('::169.254.169.254')).toBe('metadata');
    expect(codeOf('::a9fe:a9fe')).toBe('metadata');
    expect(codeOf('::93.184.215.14')).toBe('ok');
    // The unspecified and loopback IPv6 addresses stay what they are.
    expect(codeOf('::')).toBe('private');
    expect(codeOf('::1')).toBe('private');
  });

  it('judges 6to4 2002:AABB:CCDD:: (2002::/16) as the IPv4 address AA.BB.CC.DD', () => {
    expect(codeOf('2002:7f00:1::')).toBe('private');
    expect(codeOf('2002:7f00:0001:0:0:0:0:1')).toBe('private');
    expect(codeOf('2002:c0a8:101::1')).toBe('private');
    expect(codeOf('2002:a9fe:a9fe::')).toBe('metadata');
    expect(codeOf('2002:5db8:d70e::1')).toBe('ok');
  });

  it('keeps judging IPv4-mapped and IPv4-translated addresses as IPv4', () => {
    expect(codeOf('::ffff:127.0.0.1')).toBe('private');
    expect(codeOf('::ffff:7f00:1')).toBe('private');
    expect(codeOf('::ffff:169.254.169.254')).toBe('metadata');
    expect(codeOf('::ffff:0:10.0.0.1')).toBe('private');
    expect(codeOf('::ffff:93.184.215.14')).toBe('ok');
  });

  it('applies the operator’s IPv4 allowance to the embedded address, but never to metadata', () => {
    vi.stubEnv(VAR, '127.0.0.1/32,169.254.0.0/16');
    expect(codeOf('::127.0.0.1')).toBe('ok');
    expect(codeOf('2002:7f00:1::')).toBe('ok');
    expect(codeOf('::10.0.0.1')).toBe('private');
    expect(codeOf('::169.254.169.254')).toBe('metadata');
    expect(codeOf('2002:a9fe:a9fe::')).toBe('metadata');
  });

  it('leaves other IPv6 addresses to the IPv6 rules', () => {
    expect(codeOf('2606:4700::1111')).toBe('ok');
    expect(codeOf('fd00:ec2::254')).toBe('metadata');
    expect(codeOf('fe80::1')).toBe('private');
    expect(codeOf('fc00::5')).toBe('private');
  });
});
