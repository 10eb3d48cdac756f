import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateSamlMessage, samlResponse } from '../../tests/helpers/saml-idp';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;

function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(new URLSearchParams(data)));
  });
}

/**
 * A SAML IdP on loopback for browser tests: GET /sso reads the AuthnRequest Steward redirected
 * with and asks who signs in; POST /sso/login posts a response signed with the test IdP key to
 * the ACS URL the request named (answering its ID, addressed to its issuer).
 */
export async function startTestIdp() {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp');
    if (req.method === 'GET' && url.pathname === '/sso') {
      const xml = inflateSamlMessage(url.searchParams.get('SAMLRequest') ?? '');
      const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? '';
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? '';
      const issuer = /<saml:Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        page(
          'Test IdP',
          `<form method="post" action="/sso/login"><input type="hidden" name="id" value="${esc(id)}"><input type="hidden" name="acs" value="${esc(acs)}"><input type="hidden" name="audience" value="${esc(issuer)}"><input type="hidden" name="relay" value="${esc(url.searchParams.get('RelayState') ?? '')}"><p><label for="email">Email at the IdP</label> <input id="email" name="email" type="email" required></p><p><label for="groups">Groups (comma-separated)</label> <input id="groups" name="groups"></p><button type="submit">Sign in at the test IdP</button></form>`,
        ),
      );
      return;
    }
    if (req.method === 'GET' && url.pathname === '/slo') {
      // Steward's LogoutRequest names the session ending; the IdP "signs out" and sends the browser back.
      const xml = inflateSamlMessage(url.searchParams.get('SAMLRequest') ?? '');
      const nameId = /<saml:NameID[^>]*>([^<]+)</.exec(xml)?.[1] ?? '';
      // The request's Issuer is Steward's entity id (<origin>/api/sso/saml/metadata); its SLO URL sits beside it.
      const issuer = /<saml:Issuer[^>]*>([^<]+)</.exec(xml)?.[1] ?? '';
      const sloUrl = issuer.replace(/\/metadata$/, '/slo');
      const response = Buffer.from(`<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_lo" Version="2.0"><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status></samlp:LogoutResponse>`).toString('base64');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(page('Signed out at the test IdP', `<p>Session of ${esc(nameId)} ended.</p><p><a href="${esc(sloUrl)}?SAMLResponse=${encodeURIComponent(response)}">Return to Steward</a></p>`));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/sso/login') {
      const f = await readForm(req);
      const email = f.get('email') ?? '';
      const groups = (f.get('groups') ?? '').split(',').map((g) => g.trim()).filter(Boolean);
      const SAMLResponse = samlResponse({ acsUrl: f.get('acs')!, audience: f.get('audience')!, inResponseTo: f.get('id')!, email, attributes: { email, firstName: 'Idp', lastName: 'User', ...(groups.length ? { groups } : {}) } });
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        page(
          'Returning to Steward',
          `<form method="post" action="${esc(f.get('acs')!)}"><input type="hidden" name="SAMLResponse" value="${SAMLResponse}"><input type="hidden" name="RelayState" value="${esc(f.get('relay') ?? '')}"><button type="submit">Continue to Steward</button></form>`,
        ),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
