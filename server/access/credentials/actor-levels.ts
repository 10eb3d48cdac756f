import { accountBlocked, forbidden, killSwitchEngaged, onboardingRequired, unauthorized } from '@/server/http/errors';
import { actsAsUser, type Actor } from '../actor';
import { NEEDS_USER_MESSAGE } from '../require-user';
import { assertScopes } from '../scopes';
import { apiKeyCredential } from './api-key';
import { type EndpointFacts, type Presented, credentialLevel } from './authenticator';
import { certificateCredential } from './certificate';

const kinds = [apiKeyCredential, certificateCredential];

function refuse({ header, token, kind }: Presented): Error {
  if (!header) return unauthorized('Missing credential: send Authorization: Bearer <API key or certificate token>');
  if (token === null) return unauthorized('Malformed Authorization header: expected "Bearer <credential>"');
  if (kind?.misplaced) return unauthorized(kind.misplaced);
  return unauthorized('Unrecognised credential: expected an ak_live_ API key or an RS256 certificate token');
}

/**
 * What every level an API credential opens checks once the rate limit is spent, in this order:
 * the key's scopes, then the acted-as user's state (blocked: 403; not onboarded: 428 unless the
 * endpoint is exempt).
 */
function admitted(actor: Actor, ep: EndpointFacts): void {
  assertScopes(actor, ep.method, ep.path);
  if (actor.user) {
    if (actor.user.status !== 'active') throw accountBlocked();
    if (!actor.user.onboardedAt && !ep.onboardingExempt) throw onboardingRequired();
  }
}

/** Last: work the account kill switch stops (423). */
function killSwitch(actor: Actor, ep: EndpointFacts): void {
  if (ep.killSwitch && actor.account.killSwitch) throw killSwitchEngaged();
}

const subject = (actor: Actor) => actor;

/** The levels API keys and certificate tokens open: `any`, `user` and `account`. */
export const actorLevels = [
  credentialLevel({
    level: 'any',
    kinds,
    refuse,
    subject,
    admit(actor, ep) {
      admitted(actor, ep);
      killSwitch(actor, ep);
      return { actor };
    },
  }),
  credentialLevel({
    level: 'user',
    kinds,
    refuse,
    subject,
    admit(actor, ep) {
      admitted(actor, ep);
      if (!actsAsUser(actor)) throw unauthorized(NEEDS_USER_MESSAGE);
      killSwitch(actor, ep);
      return { actor };
    },
  }),
  credentialLevel({
    level: 'account',
    kinds,
    refuse,
    subject,
    admit(actor, ep) {
      admitted(actor, ep);
      if (actor.user || actor.level !== 'account') throw forbidden('This call needs an account-wide key without X-User-Email');
      killSwitch(actor, ep);
      return { actor };
    },
  }),
];
