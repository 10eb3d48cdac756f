import type { MailboxRow } from '@/db/schema';
import { gmailConfig } from '@/server/channels/gmail/config';
import { gmailGetRaw, gmailGetSummary, gmailList, gmailSend, type GmailAccess } from '@/server/channels/gmail/api';
import { graphConfig } from '@/server/channels/graph/config';
import { graphCreateMimeDraft, graphFindSent, graphGetMime, graphSearch, graphSendDraft, type GraphAccess } from '@/server/channels/graph/api';
import { ProviderHttpError } from '@/server/channels/providers';

/*
 * What Steward does with any connected mailbox, over its provider's adapter: send a message as
 * built (RFC 822), find one it sent by Message-ID, search and read. Sync differs per provider
 * (sync-gmail.ts, sync-outlook.ts).
 */

export type MailSummary = { messageId: string; from: string | null; subject: string | null; date: string | null; snippet: string };

export type MailboxClient = {
  /** Sends; throws ProviderHttpError (`reached` false: certainly nothing was sent). */
  send(raw: Buffer): Promise<{ providerMessageId: string | null }>;
  /** The provider's id of the sent message carrying this Message-ID, if the mailbox has it. */
  findSent(messageId: string): Promise<string | null>;
  search(query: string, limit: number): Promise<MailSummary[]>;
  /** The whole message as received, and (Gmail) its labels. */
  read(id: string): Promise<{ raw: Buffer; labelIds: string[] }>;
};

function gmailClient(g: GmailAccess): MailboxClient {
  return {
    send: async (raw) => ({ providerMessageId: (await gmailSend(g, raw)).id }),
    findSent: async (messageId) => (await gmailList(g, `in:sent rfc822msgid:${messageId.replace(/^<|>$/g, '')}`, 1))[0] ?? null,
    search: async (query, limit) => {
      const ids = await gmailList(g, query, limit);
      const out: MailSummary[] = [];
      for (const id of ids) {
        const m = await gmailGetSummary(g, id);
        out.push({ messageId: m.id, from: m.from, subject: m.subject, date: m.date, snippet: m.snippet });
      }
      return out;
    },
    read: async (id) => {
      const m = await gmailGetRaw(g, id);
      return { raw: m.raw, labelIds: m.labelIds };
    },
  };
}

function outlookClient(g: GraphAccess): MailboxClient {
  return {
    send: async (raw) => {
      let draft: { id: string };
      try {
        draft = await graphCreateMimeDraft(g, raw);
      } catch (e) {
        // Only a draft could have been made: nothing was sent, whatever the answer was.
        if (e instanceof ProviderHttpError) throw new ProviderHttpError(e.provider, e.status, e.code, `${e.message} (the message was not sent)`, false);
        throw e;
      }
      await graphSendDraft(g, draft.id);
      return { providerMessageId: draft.id };
    },
    findSent: (messageId) => graphFindSent(g, messageId),
    search: async (query, limit) => (await graphSearch(g, query, limit)).map((m) => ({ messageId: m.id, from: m.from, subject: m.subject, date: m.date, snippet: m.snippet })),
    read: async (id) => ({ raw: await graphGetMime(g, id), labelIds: [] }),
  };
}

/** The client of one mailbox with one access token (the provider's settings must be configured). */
export function clientFor(mailbox: Pick<MailboxRow, 'provider'>, accessToken: string): MailboxClient {
  return mailbox.provider === 'gmail' ? gmailClient({ cfg: gmailConfig(), accessToken }) : outlookClient({ cfg: graphConfig(), accessToken });
}
