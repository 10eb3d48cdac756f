import { DOMParser } from '@xmldom/xmldom';
import { badRequest } from '@/server/http/errors';

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const elements = (root: { getElementsByTagNameNS(ns: string, name: string): ArrayLike<Element> }, name: string) =>
  Array.from(root.getElementsByTagNameNS('*', name)) as Element[];

/**
 * Reads what sign-in needs from an IdP's SAML metadata document: its entity id (issuer), the
 * single sign-on and single logout URLs (HTTP-Redirect preferred, as Steward sends requests that way) and the signing certificate.
 */
export function parseIdpMetadata(xml: string): { issuer: string; entryPoint: string; certificate: string; logoutUrl?: string } {
  let failed = false;
  const doc = new DOMParser({ errorHandler: { error: () => void (failed = true), fatalError: () => void (failed = true) } }).parseFromString(xml, 'text/xml');
  if (failed || !doc?.documentElement) throw badRequest('saml.metadataXml: is not an XML document');
  const entity = elements(doc, 'EntityDescriptor')[0];
  const idp = elements(doc, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw badRequest('saml.metadataXml: has no IdP EntityDescriptor with an IDPSSODescriptor');
  const services = elements(idp, 'SingleSignOnService');
  const sso = services.find((s) => s.getAttribute('Binding') === REDIRECT) ?? services.find((s) => s.getAttribute('Binding') === POST);
  const logouts = elements(idp, 'SingleLogoutService');
  const slo = logouts.find((s) => s.getAttribute('Binding') === REDIRECT) ?? logouts.find((s) => s.getAttribute('Binding') === POST);
  const signing = elements(idp, 'KeyDescriptor').find((k) => (k.getAttribute('use') ?? 'signing') === 'signing');
  const cert = signing ? elements(signing, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '') : undefined;
  if (!sso?.getAttribute('Location')) throw badRequest('saml.metadataXml: has no SingleSignOnService location');
  if (!cert) throw badRequest('saml.metadataXml: has no signing certificate');
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const logoutUrl = slo?.getAttribute('Location');
  return { issuer: entity.getAttribute('entityID') ?? '', entryPoint: sso.getAttribute('Location')!, certificate: pem, ...(logoutUrl ? { logoutUrl } : {}) };
}
