import type { CartRow } from '@/db/schema';
import type { ShownDispatchRow } from './versions';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What a cart is shown with besides its own row. */
export type CartContext = { taskTitle: string; assistantName: string | null };

/** One dispatch exactly as its current version shows it (what an approval sends). */
export function toPublicDispatch({ dispatch, content, versionId }: ShownDispatchRow) {
  return {
    index: dispatch.index,
    type: dispatch.type,
    platform: content.platform,
    actionType: dispatch.actionType,
    from: content.from,
    to: content.to,
    cc: content.cc,
    bcc: content.bcc,
    subject: content.subject,
    body: content.body,
    description: content.description,
    payload: content.payload,
    files: content.files,
    editedByUser: dispatch.editedByUser,
    currentVersionId: versionId,
    validUntil: content.validUntil,
    evergreen: content.evergreen,
    deliveryState: dispatch.deliveryState,
    heldBecause: dispatch.heldBecause ?? null,
  };
}

/** A cart as the API shows it (spec document 2, "Approval (cart)"). */
export function toPublicCart(cart: CartRow, ctx: CartContext, shown: ShownDispatchRow[]) {
  return {
    id: cart.id,
    taskId: cart.taskId,
    taskTitle: ctx.taskTitle,
    assistantName: ctx.assistantName,
    status: cart.status,
    resolvedApprovalMode: cart.resolvedApprovalMode,
    timeBoxedExpiresAt: iso(cart.timeBoxedExpiresAt),
    timeBoxedExpiry: cart.timeBoxedExpiry,
    dispatches: shown.map(toPublicDispatch),
    contentHash: cart.contentHash,
    createdAt: cart.createdAt.toISOString(),
    updatedAt: cart.updatedAt.toISOString(),
  };
}
