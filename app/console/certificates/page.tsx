import { Section } from '@/app/_ui/field';
import { Table } from '@/app/_ui/list';
import { Badge, Empty } from '@/app/_ui/states';
import { Time } from '@/app/_ui/time';
import { PageHead } from '../_ui/page-head';
import { consoleSession } from '../_ui/session';
import { RegisterCertificate, RevokeCertificate } from './certificate-forms';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Certificates · Console · Steward' };

/** Public keys for certificate tokens (spec 1): the registered key's id is the `kid` the Node client library signs with. */
export default async function ConsoleCertificates() {
  const { api, canChange } = await consoleSession('/console/certificates');
  const { certificates } = await api.console.access.certificates();
  return (
    <>
      <PageHead title="Certificates" description="Register the public half of an RSA key pair; your backend signs RS256 tokens with the private half and the id shown here as kid. The private key never leaves your servers." />
      {canChange && (
        <Section id="register" title="Register a public key">
          <RegisterCertificate />
        </Section>
      )}
      <Section id="certificates" title="Registered keys" bare>
        {certificates.length === 0 ? (
          <Empty title="No certificate registered" />
        ) : (
          <Table label="Registered keys" head={['kid', 'SHA-256 fingerprint', 'Status', 'Registered', ...(canChange ? ['Actions'] : [])]}>
            {certificates.map((cert) => (
              <tr key={cert.kid}>
                <td>
                  <code>{cert.kid}</code>
                </td>
                <td className="[overflow-wrap:anywhere]">
                  <code className="text-xs">{cert.fingerprint.match(/.{1,16}/g)?.join(' ')}</code>
                </td>
                <td>
                  {cert.status === 'active' ? (
                    <Badge tone="ok">Active</Badge>
                  ) : (
                    <>
                      <Badge>Revoked</Badge> <Time value={cert.revokedAt} className="text-xs text-muted" />
                    </>
                  )}
                </td>
                <td className="whitespace-nowrap">
                  <Time value={cert.createdAt} />
                </td>
                {canChange && <td>{cert.status === 'active' ? <RevokeCertificate kid={cert.kid} /> : '—'}</td>}
              </tr>
            ))}
          </Table>
        )}
      </Section>
    </>
  );
}
