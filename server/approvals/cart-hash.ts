import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import type { DispatchContent } from '@/db/schema';

/*
 * contentHash (spec document 4, Carts and dispatch): SHA-256 over the canonical JSON (RFC 8785,
 * the `canonicalize` package) of exactly what the person is shown of every dispatch, in index
 * order. The index is part of it so that which action sits where is part of what was approved,
 * and so is the assistant's description of the action, which the person is shown as well.
 * An approval compares the hash it was given with this one, so anything the person sees and
 * could object to must be in it, and nothing that changes without the content changing may be.
 */

/** One shown dispatch: its place in the cart and its current content. */
export type ShownDispatch = { index: number; content: DispatchContent };

/** The fields the hash covers, each always present (absent and null hash alike). */
function hashed(d: ShownDispatch) {
  const c = d.content;
  return {
    index: d.index,
    type: c.type,
    platform: c.platform,
    from: c.from ?? null,
    to: c.to ?? [],
    cc: c.cc ?? [],
    bcc: c.bcc ?? [],
    subject: c.subject ?? null,
    body: c.body ?? null,
    description: c.description ?? null,
    payload: c.payload ?? null,
    files: (c.files ?? []).map((f) => ({ filename: f.filename, mimeType: f.mimeType, size: f.size, fileId: f.fileId })),
    validUntil: c.validUntil ?? null,
    evergreen: c.evergreen ?? false,
  };
}

/** Lower-case hex SHA-256 of the cart's shown content; the dispatches may come in any order. */
export function cartContentHash(dispatches: readonly ShownDispatch[]): string {
  const ordered = [...dispatches].sort((a, b) => a.index - b.index).map(hashed);
  const json = canonicalize({ dispatches: ordered });
  if (json === undefined) throw new Error('cart content cannot be serialized');
  return createHash('sha256').update(json, 'utf8').digest('hex');
}
