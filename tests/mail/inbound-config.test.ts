import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BYTES, inboundListenerConfig } from '@/server/mail/inbound-listener';

const KEY = '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\ndef\n-----END CERTIFICATE-----\n';

describe('inbound listener settings (environment)', () => {
  it('is off without STEWARD_INBOUND_SMTP_PORT', () => {
    expect(inboundListenerConfig({})).toBeNull();
    expect(inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: ' ' })).toBeNull();
  });

  it('listens on the port with the defaults: every interface, 25 MB, no STARTTLS, no spam or virus check', () => {
    expect(inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '2525' })).toEqual({
      port: 2525,
      host: '0.0.0.0',
      maxBytes: DEFAULT_MAX_BYTES,
      tls: null,
      checks: { spamd: null, clamd: null },
    });
    expect(DEFAULT_MAX_BYTES).toBe(25 * 1024 * 1024);
  });

  it('takes the TLS pair as PEM text or as file paths, and only both together', () => {
    expect(inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_INBOUND_TLS_KEY: KEY, STEWARD_INBOUND_TLS_CERT: CERT })?.tls).toEqual({ key: KEY, cert: CERT });
    const dir = mkdtempSync(path.join(tmpdir(), 'inbound-tls-'));
    writeFileSync(path.join(dir, 'key.pem'), KEY);
    writeFileSync(path.join(dir, 'cert.pem'), CERT);
    const env = { STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_INBOUND_TLS_KEY: path.join(dir, 'key.pem'), STEWARD_INBOUND_TLS_CERT: path.join(dir, 'cert.pem') };
    expect(inboundListenerConfig(env)?.tls).toEqual({ key: KEY, cert: CERT });
    expect(() => inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_INBOUND_TLS_KEY: KEY })).toThrow(/both/);
  });

  it('checks with spamd and clamd when STEWARD_SPAMD_URL and STEWARD_CLAMD_URL name them', () => {
    const env = { STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_SPAMD_URL: 'spamd://127.0.0.1:783', STEWARD_CLAMD_URL: 'tcp://127.0.0.1:3310' };
    expect(inboundListenerConfig(env)?.checks).toEqual({ spamd: { host: '127.0.0.1', port: 783, timeoutMs: 5000 }, clamd: { host: '127.0.0.1', port: 3310, timeoutMs: 5000 } });
    expect(() => inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_SPAMD_URL: 'localhost' })).toThrow(/STEWARD_SPAMD_URL/);
  });

  it('refuses a port or size that is not one', () => {
    expect(() => inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: 'smtp' })).toThrow(/STEWARD_INBOUND_SMTP_PORT/);
    expect(() => inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '70000' })).toThrow(/STEWARD_INBOUND_SMTP_PORT/);
    expect(() => inboundListenerConfig({ STEWARD_INBOUND_SMTP_PORT: '25', STEWARD_INBOUND_MAX_BYTES: '-1' })).toThrow(/STEWARD_INBOUND_MAX_BYTES/);
  });
});
