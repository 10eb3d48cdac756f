import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelIdentities, type ChannelIdentityRow } from '@/db/schema';
import { linkScope, type OutboundButton, type OutboundFile, type SendRequest } from './adapter';
import { portAdapter, threadOfRef } from './adapters';
import { failedDelivery, type Delivery } from './message';

/*
 * A send through the channel port as the assistant (its own connection on the channel): the one way
 * the core's replies, dispatches, notices and approval posts reach a port adapter. The kind is said
 * by the caller; a channel whose adapter does not carry files or buttons refuses them rather than
 * sending less than was asked.
 */
export async function sendThroughPort(
  db: Db,
  o: { channel: string; assistantId: string; kind: SendRequest['kind']; thread?: string | null; to?: string | null; replyTo?: string | null; text: string; files?: OutboundFile[]; buttons?: OutboundButton[] },
): Promise<Delivery> {
  const adapter = portAdapter(o.channel);
  if (!adapter) return failedDelivery(`no provider configured for ${o.channel}`);
  if (o.files?.length && !adapter.capabilities.files) return failedDelivery(`a ${o.channel} message cannot carry files: nothing was sent`);
  if (o.buttons?.length && !adapter.capabilities.buttons) return failedDelivery(`${o.channel} has no buttons: nothing was sent`);
  const connection = await adapter.connectionFor(db, o.assistantId, o.thread);
  if (!connection) return failedDelivery(`the assistant has no ${o.channel} connection${o.thread ? ' to that conversation' : ''}`);
  try {
    return await adapter.send(db, { kind: o.kind, connection, thread: o.thread ?? null, to: o.to ?? null, replyTo: o.replyTo ?? null, text: o.text, files: o.files ?? [], buttons: o.buttons });
  } catch (e) {
    // Our own failure before the provider was called (a read, a sealed token): nothing left.
    return failedDelivery(`${o.channel} adapter: ${(e as Error).message}`);
  }
}

/**
 * Something for the owner alone (a notice, an approval card), in their 1:1 thread with one of the
 * assistant's connections: found through an identity they linked there (through that connection,
 * or the deployment bot's directory), the newest first. Without one nothing is sent, with the reason.
 */
export async function sendToOwner(
  db: Db,
  o: { channel: string; assistantId: string; userId: string; text: string; buttons?: OutboundButton[] },
): Promise<Delivery & { thread?: string; connectionId?: string }> {
  const adapter = portAdapter(o.channel);
  if (!adapter) return failedDelivery(`the assistant has no ${o.channel} connection`);
  const identities = await db
    .select()
    .from(channelIdentities)
    .where(and(eq(channelIdentities.userId, o.userId), eq(channelIdentities.provider, o.channel as ChannelIdentityRow['provider'])))
    .orderBy(desc(channelIdentities.updatedAt))
    .limit(20);
  let connected = false;
  let refused: Delivery | null = null;
  for (const identity of identities) {
    const thread = adapter.directThread({ workspaceId: identity.workspaceId, userId: identity.externalUserId, linkedThrough: identity.appId });
    const connection = await adapter.connectionFor(db, o.assistantId, thread);
    if (!connection) continue;
    connected = true;
    // A link made through another connection (another assistant's bot or app) proves nothing here.
    const scope = linkScope(connection);
    if (scope !== undefined && identity.appId !== scope) continue;
    const d = await sendThroughPort(db, { channel: o.channel, assistantId: o.assistantId, kind: 'notice', thread, text: o.text, buttons: o.buttons });
    // Refused with nothing sent (the app no longer in that workspace, the person gone from it): their
    // next link may still reach them. Anything else may have reached them, so it is the answer.
    if (d.state === 'failed') {
      refused ??= d;
      continue;
    }
    // The thread the message landed in, as a press on it will name it (a person's thread may resolve to their chat).
    return { ...d, thread: threadOfRef(d.providerMessageId) ?? thread, connectionId: connection.id };
  }
  if (refused) return refused;
  if (!connected && !(await adapter.connectionFor(db, o.assistantId))) return failedDelivery(`the assistant has no ${o.channel} connection`);
  return failedDelivery(`the owner has not linked their ${adapter.label} account to this assistant`);
}
