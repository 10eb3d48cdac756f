import type { UserSandbox } from './sandbox';

/*
 * The sandboxes this process runs, by account and user. Apart from the manager (which starts
 * and stops them) so that the profile and snapshots can look at a running sandbox without
 * importing what records them.
 */

const live = new Map<string, UserSandbox>();
export const sandboxKeyOf = (accountId: string, userId: string) => `${accountId}/${userId}`;

export function peekSandbox(accountId: string, userId: string): UserSandbox | null {
  const s = live.get(sandboxKeyOf(accountId, userId));
  return s?.running ? s : null;
}

export const registerSandbox = (s: UserSandbox) => void live.set(sandboxKeyOf(s.accountId, s.userId), s);

export function forgetSandbox(s: UserSandbox) {
  const key = sandboxKeyOf(s.accountId, s.userId);
  if (live.get(key) === s) live.delete(key);
}

export const liveSandboxes = () => [...live.values()];
