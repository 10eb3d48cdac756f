import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from './master-key';

/**
 * A stored secret wrapped with the master key: `mk1:<key id>:<iv>:<ciphertext>:<tag>` (AES-256-GCM,
 * base64url parts). The secret's name is authenticated with it, so a value copied into another
 * row (say the URL-signing key into the session secret) does not open.
 */
const PREFIX = 'mk1';

export const isWrapped = (value: string) => value.startsWith(`${PREFIX}:`);

export function wrapSecret(master: MasterKey, name: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', master.key, iv);
  cipher.setAAD(Buffer.from(`app_secrets:${name}`));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [PREFIX, master.id, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(':');
}

export function unwrapSecret(master: MasterKey, name: string, stored: string): string {
  const [prefix, id, iv, sealed, tag] = stored.split(':');
  if (prefix !== PREFIX || !tag) throw new Error(`app secret "${name}" is not in a known wrapped form`);
  if (id !== master.id) {
    throw new Error(
      `app secret "${name}" was wrapped with another master key (${id}, this process has ${master.id} from ${master.source}): ` +
        'give every instance the same STEWARD_MASTER_KEY, or restore the original master.key',
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', master.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`app_secrets:${name}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`app secret "${name}" failed its integrity check: the row was altered or belongs to another name`);
  }
}
