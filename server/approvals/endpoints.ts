import { defineEndpoint } from '@/server/http/endpoint';
import {
  ApproveCartBody,
  ApproveCartResponse,
  CancelCartBody,
  CancelCartResponse,
  CartEnvelope,
  CartParams,
  DispatchParams,
  EditDispatchBody,
  ListCartsQuery,
  ListCartsResponse,
  SnapshotsResponse,
  UndoDispatchResponse,
  UpdateDispatchBody,
} from './contracts';
import { editDispatch, removeDispatch, updateDispatch } from './edits';
import { approveCart, cancelCart, getCart, listCarts, listSnapshots } from './service';
import { undoDispatch } from './undo';

const tags = ['Approvals'];
// Level `any`: the services answer a caller not acting as a user with 403, as the spec asks of
// every approvals call (the `user` level would answer 401). Decisions also refuse task runs.
const asUser = { tags, auth: 'any' as const, needsPerson: true };

/** The trust rule every cart read states (spec 5, Taint and held dispatches; docs/security.md). */
const HELD_RULE =
  'A dispatch staged by a run that read untrusted content (inbound mail or a contact’s reply, a web page, a document, an MCP tool result, ' +
  'another person’s message, or a run an external trigger started) and addressed to anyone but the owner (or addresses the owner trusts ' +
  'through a recipient exception) is never released by `auto` or `time-boxed`: its cart waits as `pending_approval` whatever the autonomy ' +
  'matrix says, and the dispatch carries `heldBecause: {kind: "untrusted_input", sources: [{kind, ref}]}` naming where the content came from. ' +
  'Locks can make this stricter, never looser.';

export const approvalsEndpoints = [
  defineEndpoint({
    ...asUser,
    method: 'GET',
    path: '/portal/carts',
    summary: 'The carts waiting for you (status: comma-separated pending_approval, time_boxed; default both), newest first, at most 50',
    description: HELD_RULE,
    query: ListCartsQuery,
    response: ListCartsResponse,
    errors: [403],
    handle: ({ db, actor, query }) => listCarts(db, actor, query),
  }),
  defineEndpoint({
    ...asUser,
    method: 'GET',
    path: '/portal/carts/{cartId}',
    summary: 'One cart with every dispatch exactly as it will be sent, and its contentHash',
    description: HELD_RULE,
    params: CartParams,
    response: CartEnvelope,
    errors: [403, 404],
    handle: ({ db, actor, params }) => getCart(db, actor, params.cartId),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/portal/carts/{cartId}/approve',
    summary: 'Approve exactly the content you read: contentHash is required and must still be current (409 cart_content_changed otherwise, nothing sent)',
    params: CartParams,
    body: ApproveCartBody,
    response: ApproveCartResponse,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, body }) => approveCart(db, actor, params.cartId, body),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/portal/carts/{cartId}/cancel',
    summary: 'Cancel a cart pending approval or time-boxed: nothing is sent; the assistant receives the reason',
    params: CartParams,
    body: CancelCartBody,
    response: CancelCartResponse,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, body }) => cancelCart(db, actor, params.cartId, body),
  }),
  defineEndpoint({
    ...asUser,
    method: 'PATCH',
    path: '/portal/carts/{cartId}/dispatches/{index}/edit',
    summary: 'Edit the subject, body, validUntil or evergreen of a dispatch: a new version and a new contentHash (recipients and payload: 400 edit_not_supported)',
    params: DispatchParams,
    body: EditDispatchBody,
    response: CartEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, body }) => editDispatch(db, actor, params.cartId, params.index, body),
  }),
  defineEndpoint({
    ...asUser,
    method: 'PATCH',
    path: '/portal/carts/{cartId}/dispatches/{index}',
    summary: 'Change the subject, body, recipients or payload of a dispatch: a new version and a new contentHash',
    params: DispatchParams,
    body: UpdateDispatchBody,
    response: CartEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params, body }) => updateDispatch(db, actor, params.cartId, params.index, body),
  }),
  defineEndpoint({
    ...asUser,
    method: 'DELETE',
    path: '/portal/carts/{cartId}/dispatches/{index}',
    summary: 'Remove a dispatch from the cart (a cart with none left waits until cancelled)',
    params: DispatchParams,
    response: CartEnvelope,
    errors: [403, 404, 409],
    handle: ({ db, actor, params }) => removeDispatch(db, actor, params.cartId, params.index),
  }),
  defineEndpoint({
    ...asUser,
    method: 'GET',
    path: '/portal/carts/{cartId}/snapshots',
    summary: 'One entry per action of the cart that ran, with whether it can still be undone and until when',
    params: CartParams,
    response: SnapshotsResponse,
    errors: [403, 404],
    handle: ({ db, actor, params }) => listSnapshots(db, actor, params.cartId),
  }),
  defineEndpoint({
    ...asUser,
    method: 'POST',
    path: '/portal/carts/{cartId}/dispatches/{index}/undo',
    summary:
      'Undo a released email or message while it is held in its undo window (undoDelaySec): it is never sent. ' +
      'Undoing it again answers the same; 409 undo_window_closed once the window ended or it was sent, 409 not_undoable for an action never held (a cart not released: cancel it instead)',
    params: DispatchParams,
    response: UndoDispatchResponse,
    errors: [403, 404, 409],
    handle: ({ db, actor, params }) => undoDispatch(db, actor, params.cartId, params.index),
  }),
];
