import { X509Certificate } from 'node:crypto';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** PEM text for base64 DER. */
export const derToPem = (der: string) => `-----BEGIN CERTIFICATE-----\n${(der.replace(/\s+/g, '').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;

/**
 * The certificates in an IdP certificate field: one or several PEM blocks (the current and the
 * next one during a rotation), or bare base64 DER. Null when any of them does not parse as X.509.
 */
export function parseCertificates(text: string): string[] | null {
  const blocks = text.includes('BEGIN CERTIFICATE') ? (text.match(PEM_BLOCK) ?? []) : [derToPem(text)];
  if (blocks.length === 0) return null;
  try {
    for (const b of blocks) new X509Certificate(b);
    return blocks;
  } catch {
    return null;
  }
}
