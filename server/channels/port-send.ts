import type { Db } from '@/db/client';
import type { OutboundButton, OutboundFile, SendRequest } from './adapter';
import { portAdapter } from './adapters';
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
  const connection = await adapter.connectionFor(db, o.assistantId);
  if (!connection) return failedDelivery(`the assistant has no ${o.channel} connection`);
  try {
    return await adapter.send(db, { kind: o.kind, connection, thread: o.thread ?? null, to: o.to ?? null, replyTo: o.replyTo ?? null, text: o.text, files: o.files ?? [], buttons: o.buttons });
  } catch (e) {
    // Our own failure before the provider was called (a read, a sealed token): nothing left.
    return failedDelivery(`${o.channel} adapter: ${(e as Error).message}`);
  }
}
