import { actorLevels } from '@/server/access/credentials/actor-levels';
import { apiKeyCredential } from '@/server/access/credentials/api-key';
import { certificateCredential } from '@/server/access/credentials/certificate';
import { CredentialRegistry } from '@/server/access/credentials/registry';
import { serviceKeyCredential, serviceLevel } from '@/server/prompts/credential';
import { scimLevel, scimTokenCredential } from '@/server/scim/credential';

/**
 * Every credential the API accepts, composed here above the areas that define them (as
 * server/endpoints.ts composes their endpoints): API keys and certificate tokens open the levels
 * `any`, `user` and `account`; the prompts area's service keys open `service`; the SCIM area's
 * tokens open `scim`. The hosted app's session cookie is not here: the kernel never sees one
 * (tRPC resolves it, server/sign-in/portal-actor.ts).
 */
export const credentials = new CredentialRegistry(
  // The order a bearer token is recognised in: the prefixed kinds, then the certificate token,
  // known by its shape alone (three dot-separated parts), which a prefixed token could also have.
  [apiKeyCredential, serviceKeyCredential, scimTokenCredential, certificateCredential],
  [...actorLevels, serviceLevel, scimLevel],
);
