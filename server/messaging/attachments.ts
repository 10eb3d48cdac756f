import type { Tx } from '@/db/client';
import type { ChatFile, UserRow } from '@/db/schema';
import type { InboundChannelMessage } from '@/server/channels/message';
import { storeIncomingFile } from '@/server/files/store';

/** A message's attachments as files of the user it is for, within their quota; what does not fit is named. */
export async function storeAttachments(tx: Tx, user: Pick<UserRow, 'id' | 'accountId'>, msg: InboundChannelMessage): Promise<{ files: ChatFile[]; refused: string[] }> {
  const files: ChatFile[] = [];
  const refused: string[] = [];
  for (const a of msg.attachments) {
    const stored = await storeIncomingFile(tx, { accountId: user.accountId, userId: user.id }, { name: a.filename ?? 'attachment', mimeType: a.contentType, bytes: a.content });
    if ('file' in stored) files.push({ fileId: stored.file.id, filename: stored.file.name, mimeType: stored.file.mimeType });
    else refused.push(`${stored.name} (${stored.refused})`);
  }
  return { files, refused };
}

