import type { InboundFile } from '@/server/channels/adapter';
import type { ChannelAttachment } from '@/server/channels/message';

/**
 * The files of an inbound message, fetched from its provider once the webhook is verified (every
 * channel alike): what could not be fetched is named, `<file>: <why>`, so the text can say so.
 */
export async function fetchInboundFiles(files: InboundFile[]): Promise<{ attachments: ChannelAttachment[]; problems: string[] }> {
  const attachments: ChannelAttachment[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const got = await f.fetch().catch((e: unknown) => ({ problem: e instanceof Error ? e.message : String(e) }));
    if ('problem' in got) problems.push(`${f.filename ?? 'a file'}: ${got.problem}`);
    else attachments.push(got);
  }
  return { attachments, problems };
}
