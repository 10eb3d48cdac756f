import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { channelIdentities, type ChannelIdentityRow } from '@/db/schema';
import { linkScope, type Connection, type LinkedFile, type OutboundButton, type OutboundFile, type SendingAdapter, type SendRequest } from './adapter';
import { portSender, threadOfRef } from './adapters';
import { failedDelivery, type Delivery } from './message';

/*
 * A send through the channel port as the assistant (its own connection on the channel): the one way
 * the core's replies, dispatches, notices and approval posts reach a port adapter. The kind is said
 * by the caller; a channel whose adapter does not carry files or buttons refuses them rather than
 * sending less than was asked.
 */
export async function sendThroughPort(
  db: Db,
  o: {
    channel: string;
    assistantId: string;
    kind: SendRequest['kind'];
    thread?: string | null;
    to?: string | null;
    replyTo?: string | null;
    text: string;
    files?: OutboundFile[];
    links?: LinkedFile[];
    buttons?: OutboundButton[];
  } & Pick<SendRequest, 'ref' | 'subject' | 'template' | 'dispatchId' | 'references'>,
): Promise<Delivery> {
  const adapter = portSender(o.channel);
  if (!adapter || (adapter.configured && !adapter.configured())) return failedDelivery(`no provider configured for ${o.channel}`);
  if ((o.files?.length || o.links?.length) && !adapter.capabilities.files) return failedDelivery(`a ${o.channel} message cannot carry files: nothing was sent`);
  if (o.links?.length && !adapter.capabilities.fileLinks) return failedDelivery(`a ${o.channel} message takes its files as bytes, not links: nothing was sent`);
  if (o.buttons?.length && !adapter.capabilities.buttons) return failedDelivery(`${o.channel} has no buttons: nothing was sent`);
  const connection = await adapter.connectionFor(db, o.assistantId, o.thread);
  if (!connection) return failedDelivery(`the assistant has no ${o.channel} connection${o.thread ? ' to that conversation' : ''}`);
  try {
    return await adapter.send(db, {
      kind: o.kind,
      connection,
      thread: o.thread ?? null,
      to: o.to ?? null,
      replyTo: o.replyTo ?? null,
      text: o.text,
      files: o.files ?? [],
      ...(o.links?.length ? { links: o.links } : {}),
      buttons: o.buttons,
      ...(o.references?.length ? { references: o.references } : {}),
      ...(o.ref ? { ref: o.ref } : {}),
      ...(o.subject ? { subject: o.subject } : {}),
      ...(o.template ? { template: o.template } : {}),
      ...(o.dispatchId ? { dispatchId: o.dispatchId } : {}),
    });
  } catch (e) {
    // Our own failure before the provider was called (a read, a sealed token): nothing left.
    return failedDelivery(`${o.channel} adapter: ${(e as Error).message}`);
  }
}

/**
 * Something for the owner alone (a notice, an approval card), in their 1:1 thread with one of the
 * assistant's connections: found through an identity they linked there (through that connection,
 * or the deployment bot's directory), the newest first, or, on a channel that knows people by a
 * verified identifier (texts), through their verified numbers. Without one nothing is sent, with
 * the reason. `allow`: a limit on what is sent to a destination (notices/budget.ts), asked before
 * each send; refused, the next thread is tried and the refusal is the answer when none takes it.
 */
export async function sendToOwner(
  db: Db,
  o: { channel: string; assistantId: string; userId: string; text: string; buttons?: OutboundButton[]; ref?: string | null; subject?: string | null; allow?: (thread: string) => Promise<string | null> },
): Promise<Delivery & { thread?: string; connectionId?: string }> {
  const adapter = portSender(o.channel);
  if (!adapter) return failedDelivery(`the assistant has no ${o.channel} connection`);
  const threads = adapter.ownerThreads ? await ownThreads(db, adapter, o) : await linkedThreads(db, adapter, o);
  if ('delivery' in threads) return threads.delivery;
  let refused: Delivery | null = null;
  for (const { thread, connection } of threads.list) {
    const limited = o.allow ? await o.allow(thread) : null;
    if (limited) {
      refused ??= failedDelivery(limited);
      continue;
    }
    const d = await sendThroughPort(db, { channel: o.channel, assistantId: o.assistantId, kind: 'notice', thread, text: o.text, buttons: o.buttons, ref: o.ref, subject: o.subject });
    // Refused with nothing sent (the app no longer in that workspace, the person gone from it, a
    // number that replied STOP): their next thread may still reach them. Anything else may have
    // reached them, so it is the answer.
    if (d.state === 'failed') {
      refused ??= d;
      continue;
    }
    // The thread the message landed in, as a press on it will name it (a person's thread may resolve to their chat).
    return { ...d, thread: threadOfRef(d.providerMessageId) ?? thread, connectionId: connection.id };
  }
  if (refused) return refused;
  return failedDelivery(threads.none);
}

type OwnerThreads = { list: Array<{ thread: string; connection: Connection }>; none: string } | { delivery: Delivery };

/** The owner's threads found through the identities they linked, each with the connection that reaches it. */
async function linkedThreads(db: Db, adapter: SendingAdapter, o: { channel: string; assistantId: string; userId: string }): Promise<OwnerThreads> {
  const identities = await db
    .select()
    .from(channelIdentities)
    .where(and(eq(channelIdentities.userId, o.userId), eq(channelIdentities.provider, o.channel as ChannelIdentityRow['provider'])))
    .orderBy(desc(channelIdentities.updatedAt))
    .limit(20);
  const list: Array<{ thread: string; connection: Connection }> = [];
  let connected = false;
  for (const identity of identities) {
    const thread = adapter.directThread({ workspaceId: identity.workspaceId, userId: identity.externalUserId, linkedThrough: identity.appId });
    const connection = await adapter.connectionFor(db, o.assistantId, thread);
    if (!connection) continue;
    connected = true;
    // A link made through another connection (another assistant's bot or app) proves nothing here.
    const scope = linkScope(connection);
    if (scope !== undefined && identity.appId !== scope) continue;
    list.push({ thread, connection });
  }
  if (!connected && !(await adapter.connectionFor(db, o.assistantId))) return { delivery: failedDelivery(`the assistant has no ${o.channel} connection`) };
  return { list, none: `the owner has not linked their ${adapter.label} account to this assistant` };
}

/** The owner's own threads (their verified numbers), all through the assistant's one connection on the channel. */
async function ownThreads(db: Db, adapter: SendingAdapter, o: { channel: string; assistantId: string; userId: string }): Promise<OwnerThreads> {
  if (adapter.configured && !adapter.configured()) return { delivery: failedDelivery(`no provider configured for ${o.channel}`) };
  const threads = await adapter.ownerThreads!(db, o.userId);
  if (!threads.length) return { delivery: failedDelivery(`the user has no verified phone number to receive ${o.channel}`) };
  const connection = await adapter.connectionFor(db, o.assistantId);
  if (!connection) return { delivery: failedDelivery(`no ${o.channel} number to send the notice from`) };
  return { list: threads.map((thread) => ({ thread, connection })), none: `no ${adapter.label} thread of the owner` };
}
