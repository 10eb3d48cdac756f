import { DOMParser } from '@xmldom/xmldom';

const COMMENT_NODE = 8;

type XNode = { nodeType: number; localName?: string | null; childNodes?: ArrayLike<XNode> };

/** A DOM of the text, or null when it is not well-formed XML (xmldom reports instead of throwing). */
export function parseXml(xml: string) {
  let failed = false;
  const doc = new DOMParser({ errorHandler: { error: () => void (failed = true), fatalError: () => void (failed = true) } }).parseFromString(xml, 'text/xml');
  return failed || !doc?.documentElement ? null : doc;
}

function* walk(node: XNode): Generator<XNode> {
  yield node;
  const kids = node.childNodes;
  if (kids) for (let i = 0; i < kids.length; i++) yield* walk(kids[i]);
}

const byLocalName = (root: XNode, name: string) => [...walk(root)].filter((n) => n.nodeType === 1 && n.localName === name) as unknown as Element[];

/** What a raw response claims before verification: used only to choose which organization's certificate to verify with. */
export function peekResponse(xml: string): { inResponseTo: string | null; issuer: string | null; destination: string | null } | null {
  const doc = parseXml(xml);
  const root = doc?.documentElement;
  if (!root || root.localName !== 'Response') return null;
  const issuer = byLocalName(root as unknown as XNode, 'Issuer')[0]?.textContent?.trim() ?? null;
  return { inResponseTo: root.getAttribute('InResponseTo') || null, issuer, destination: root.getAttribute('Destination') || null };
}

/**
 * A comment inside NameID or an attribute value: canonicalization drops comments, so such a
 * value reads differently to the signer and to a naive reader. Never legitimate; refused outright.
 */
export function hasCommentInIdentity(xml: string): boolean {
  const doc = parseXml(xml);
  if (!doc) return true;
  const holders = [...byLocalName(doc as unknown as XNode, 'NameID'), ...byLocalName(doc as unknown as XNode, 'AttributeValue')];
  return holders.some((h) => [...walk(h as unknown as XNode)].some((n) => n.nodeType === COMMENT_NODE));
}

/** Facts of a verified assertion node-saml does not check itself. */
export function assertionFacts(assertionXml: string): { id: string | null; recipients: string[]; notOnOrAfter: Date | null } {
  const doc = parseXml(assertionXml);
  const root = doc?.documentElement;
  if (!root) return { id: null, recipients: [], notOnOrAfter: null };
  const data = byLocalName(root as unknown as XNode, 'SubjectConfirmationData');
  const conditions = byLocalName(root as unknown as XNode, 'Conditions')[0];
  const ends = [conditions?.getAttribute('NotOnOrAfter'), ...data.map((d) => d.getAttribute('NotOnOrAfter'))].filter(Boolean) as string[];
  const latest = ends.map((e) => new Date(e)).filter((d) => !Number.isNaN(d.getTime())).sort((a, b) => b.getTime() - a.getTime())[0];
  return { id: root.getAttribute('ID') || null, recipients: data.map((d) => d.getAttribute('Recipient') ?? ''), notOnOrAfter: latest ?? null };
}
