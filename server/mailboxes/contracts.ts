import { z } from 'zod';
import { mailboxProviders } from '@/db/schema/channel-names';

export const MailboxProviderParam = z.enum(mailboxProviders);

/** Starting a connection as an API caller (the user's credential): the answer is a redirect for the user's browser. */
export const AuthorizeQuery = z.object({ provider: MailboxProviderParam });

/** The hosted app's link: the signed-in person's session, and where to come back to (a path of the hosted app). */
export const HostedConnectQuery = z.object({ provider: MailboxProviderParam, returnTo: z.string().max(2000).optional() });

/** What Google and Microsoft add to the redirect: the code (or an error) and the state. */
export const MailboxCallbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().min(1, 'is required').max(4096),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});

export const GraphNotificationQuery = z.object({ validationToken: z.string().min(1).max(4096).optional() });

export const Mailbox = z.object({
  id: z.string(),
  provider: MailboxProviderParam,
  platform: z.enum(['google', 'outlook']),
  address: z.string(),
  status: z.enum(['connected', 'auth_error']),
  authError: z.boolean(),
  authErrorReason: z.string().nullable(),
  scopes: z.array(z.string()),
  /** Microsoft 365: whether Graph change notifications are on (polling runs either way); null for Gmail. */
  notifications: z.boolean().nullable(),
  lastSyncedAt: z.string().nullable(),
  lastSyncError: z.string().nullable(),
  connectedAt: z.string(),
});

export const MailboxResponse = z.object({ ok: z.literal(true), mailbox: Mailbox.nullable() });
export const DisconnectResponse = z.object({ ok: z.literal(true), disconnected: z.boolean() });
export const RedirectResponse = z.unknown();
