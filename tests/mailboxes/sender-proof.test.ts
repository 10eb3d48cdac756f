import { describe, expect, it } from 'vitest';
import { parseAuthenticationResults, proveMailboxSender } from '@/server/mailboxes/sender-proof';

/**
 * Who a message fetched from a connected mailbox is from: the receiving provider's own verdict,
 * its topmost Authentication-Results header, read by Steward's rule (DMARC pass, or SPF or DKIM
 * passing aligned with the From domain; never against a DMARC fail).
 */
const lines = (...values: string[]) => values.map((v) => ({ key: 'authentication-results', line: `Authentication-Results: ${v}` }));
/** As Exchange Online delivers mail from outside the tenant: its verdict on top, and the AuthAs header its header firewall lets only Exchange set. */
const exchange = (...values: string[]) => [
  ...lines(...values.map((v) => (v.includes('compauth=') ? v : `${v};compauth=none reason=000`))),
  { key: 'x-ms-exchange-organization-authas', line: 'X-MS-Exchange-Organization-AuthAs: Anonymous' },
];
const bob = { address: 'bob@partner.example' };

describe('Authentication-Results', () => {
  it('reads the authserv-id, each method and its properties, comments left out', () => {
    expect(parseAuthenticationResults('mx.google.com;\r\n dkim=pass header.i=@partner.example header.s=s1; spf=pass (google.com: domain of x; y) smtp.mailfrom=a@partner.example;\r\n dmarc=pass (p=REJECT) header.from=partner.example')).toEqual({
      authservId: 'mx.google.com',
      results: [
        { method: 'dkim', result: 'pass', props: { 'header.i': '@partner.example', 'header.s': 's1' } },
        { method: 'spf', result: 'pass', props: { 'smtp.mailfrom': 'a@partner.example' } },
        { method: 'dmarc', result: 'pass', props: { 'header.from': 'partner.example' } },
      ],
    });
    // Exchange Online writes no authserv-id.
    expect(parseAuthenticationResults('spf=pass (sender IP is 1.2.3.4) smtp.mailfrom=partner.example; dkim=none;dmarc=bestguesspass action=none header.from=partner.example').authservId).toBeNull();
  });
});

describe('the sender of mailbox mail', () => {
  it('is proven by Google’s DMARC pass for the From domain', async () => {
    expect(await proveMailboxSender('gmail', lines('mx.google.com; dmarc=pass header.from=partner.example'), bob, 1)).toEqual({ verified: true, dmarc: 'pass', unproven: null });
  });

  it('is not proven by a header the sender wrote below the provider’s own', async () => {
    const forged = lines('mx.google.com; spf=neutral smtp.mailfrom=evil.example; dmarc=none header.from=partner.example', 'mx.google.com; dmarc=pass header.from=partner.example');
    expect(await proveMailboxSender('gmail', forged, bob, 1)).toMatchObject({ verified: false });
    expect(await proveMailboxSender('gmail', lines('evil.example; dmarc=pass header.from=partner.example'), bob, 1)).toMatchObject({ verified: false });
  });

  it('is proven by DKIM or SPF passing aligned with the From domain (relaxed), and not otherwise', async () => {
    expect(await proveMailboxSender('outlook', exchange('spf=none smtp.mailfrom=x.example; dkim=pass header.d=mail.partner.example;dmarc=none header.from=partner.example'), bob, 1)).toMatchObject({ verified: true });
    expect(await proveMailboxSender('outlook', exchange('spf=pass smtp.mailfrom=bounces.partner.example; dkim=none;dmarc=none header.from=partner.example'), bob, 1)).toMatchObject({ verified: true });
    expect(await proveMailboxSender('outlook', exchange('spf=pass smtp.mailfrom=mailer.example; dkim=pass header.d=mailer.example;dmarc=none header.from=partner.example'), bob, 1)).toMatchObject({
      verified: false,
      unproven: expect.stringContaining('nothing aligned with partner.example passed'),
    });
  });

  it('is never proven against a DMARC fail, nor with two From addresses, nor without any verdict', async () => {
    expect(await proveMailboxSender('outlook', exchange('spf=pass smtp.mailfrom=partner.example; dkim=pass header.d=partner.example;dmarc=fail header.from=partner.example'), bob, 1)).toMatchObject({ verified: false, dmarc: 'fail' });
    expect(await proveMailboxSender('gmail', lines('mx.google.com; dmarc=pass header.from=partner.example'), bob, 2)).toMatchObject({ verified: false });
    expect(await proveMailboxSender('outlook', [], bob, 1)).toMatchObject({ verified: false });
  });
});

describe('Microsoft 365’s verdict is pinned (issue 40)', () => {
  const verdict = 'spf=pass (sender IP is 1.2.3.4) smtp.mailfrom=partner.example; dkim=pass (signature was verified) header.d=partner.example;dmarc=pass action=none header.from=partner.example;compauth=pass reason=100';

  it('counts only with Exchange’s AuthAs Anonymous, in Exchange’s form (no authserv-id, EOP’s compauth)', async () => {
    expect(await proveMailboxSender('outlook', exchange(verdict), bob, 1)).toMatchObject({ verified: true });
    // A sender's own header on mail Exchange did not judge (no AuthAs, or mail from inside the tenant).
    expect(await proveMailboxSender('outlook', lines(verdict), bob, 1)).toMatchObject({ verified: false, unproven: expect.stringContaining('no verdict of Exchange Online') });
    const internal = [...lines(verdict), { key: 'x-ms-exchange-organization-authas', line: 'X-MS-Exchange-Organization-AuthAs: Internal' }];
    expect(await proveMailboxSender('outlook', internal, bob, 1)).toMatchObject({ verified: false, unproven: expect.stringContaining('AuthAs internal') });
    // Not Exchange's form: another server's authserv-id on top, or no compauth.
    expect(await proveMailboxSender('outlook', exchange(`evil.example; ${verdict}`), bob, 1)).toMatchObject({ verified: false });
    expect(await proveMailboxSender('outlook', [...lines(verdict.replace(/;compauth=.*$/, '')), exchange(verdict).at(-1)!], bob, 1)).toMatchObject({ verified: false });
  });
});
