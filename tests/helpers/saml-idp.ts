import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/** A throwaway IdP key pair committed for tests only (tests/fixtures). */
export const IDP_KEY = readFileSync(path.join(import.meta.dirname, '../fixtures/idp-key.pem'), 'utf8');
export const IDP_CERT = readFileSync(path.join(import.meta.dirname, '../fixtures/idp-cert.pem'), 'utf8');
export const IDP_ISSUER = 'https://idp.test.example/metadata';

export type ResponseOptions = {
  acsUrl: string;
  audience: string;
  email: string;
  /** Raw XML placed inside NameID instead of the escaped email (for the comment-injection case). */
  nameIdXml?: string;
  recipient?: string;
  destination?: string;
  inResponseTo?: string;
  issuer?: string;
  /** The assertion's own Issuer when it differs from the Response's (`issuer` sets both). */
  assertionIssuer?: string;
  attributes?: Record<string, string | string[]>;
  notBefore?: Date;
  notOnOrAfter?: Date;
  assertionId?: string;
  signAssertion?: boolean;
  signResponse?: boolean;
  /** Adds a second, unsigned assertion for another person beside the signed one (signature wrapping). */
  wrapWith?: string;
  key?: string;
  cert?: string;
};

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const newId = () => `_${randomBytes(16).toString('hex')}`;

export function sign(xml: string, ref: string, issuerOf: string, key: string = IDP_KEY, cert: string = IDP_CERT) {
  const sig = new SignedXml({
    privateKey: key,
    publicCert: cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: ref,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { location: { reference: issuerOf, action: 'after' } });
  return sig.getSignedXml();
}

function assertion(o: ResponseOptions, id: string, email: string, nameIdXml: string | null) {
  const now = new Date();
  const notBefore = (o.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const attrs = Object.entries(o.attributes ?? { email })
    .map(([name, v]) => `<saml:Attribute Name="${esc(name)}">${(Array.isArray(v) ? v : [v]).map((x) => `<saml:AttributeValue>${esc(x)}</saml:AttributeValue>`).join('')}</saml:Attribute>`)
    .join('');
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${esc(o.assertionIssuer ?? o.issuer ?? IDP_ISSUER)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${nameIdXml ?? esc(email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acsUrl)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** A base64 SAMLResponse as an IdP would POST it, signed with xml-crypto as configured. */
export function samlResponse(o: ResponseOptions): string {
  const key = o.key ?? IDP_KEY;
  const cert = o.cert ?? IDP_CERT;
  const assertionId = o.assertionId ?? newId();
  let signed = assertion(o, assertionId, o.email, o.nameIdXml ?? null);
  if (o.signAssertion !== false) signed = sign(signed, `//*[local-name(.)='Assertion']`, `//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']`, key, cert);
  const extra = o.wrapWith ? assertion(o, newId(), o.wrapWith, null) : '';
  const irt = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
  let xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${esc(o.destination ?? o.acsUrl)}"${irt}>` +
    `<saml:Issuer>${esc(o.issuer ?? IDP_ISSUER)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    extra +
    signed +
    `</samlp:Response>`;
  if (o.signResponse !== false) xml = sign(xml, `/*[local-name(.)='Response']`, `/*[local-name(.)='Response']/*[local-name(.)='Issuer']`, key, cert);
  return Buffer.from(xml, 'utf8').toString('base64');
}

/** The XML of a message sent with the HTTP-Redirect binding (SAMLRequest: deflated, base64). */
export function inflateSamlMessage(encoded: string): string {
  return inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
}

/** The request id of an AuthnRequest carried in an HTTP-Redirect binding URL. */
export function authnRequestId(redirectUrl: string): string {
  const encoded = new URL(redirectUrl).searchParams.get('SAMLRequest');
  if (!encoded) throw new Error('no SAMLRequest in the redirect URL');
  const id = /\sID="([^"]+)"/.exec(inflateSamlMessage(encoded))?.[1];
  if (!id) throw new Error('no ID in the AuthnRequest');
  return id;
}
