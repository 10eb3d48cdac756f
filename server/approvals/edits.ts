import { eq } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Db, Tx } from '@/db/client';
import { cartDispatches, type DispatchContent, type DispatchType } from '@/db/schema';
import type { Actor, UserActor } from '@/server/access/actor';
import { badRequest, invalidFields, notFound, type FieldProblem } from '@/server/http/errors';
import { ownCart, requirePerson, type OwnedCart } from './access';
import { requireEditable } from './cart-transitions';
import type { EditDispatchBody, UpdateDispatchBody } from './contracts';
import { toPublicCart } from './present';
import { presentCart } from './service';
import { addVersion, refreshCartHash, shownDispatches, type ShownDispatchRow } from './versions';
import { recordAudit } from '@/server/audit/record';

/*
 * The person's changes to a staged dispatch (spec document 2: PATCH .../edit, PATCH and DELETE
 * .../dispatches/{index}). Each change that alters content writes a new immutable version,
 * makes it current, marks the dispatch editedByUser and recomputes the cart's contentHash, so
 * an approval with the hash read before the change is refused. Only a cart pending approval or
 * time-boxed can change (409 `cart_not_editable`).
 */

/** What PATCH .../edit may change per type: the text. Validity (validUntil, evergreen) applies to every type. */
const EDITABLE_TEXT: Record<DispatchType, readonly ('subject' | 'body')[]> = {
  email: ['subject', 'body'],
  message: ['body'],
  calendar_event: [],
  skill_action: [],
  /** What the assistant says on the call. */
  call: ['body'],
};

type ContentField = 'subject' | 'body' | 'to' | 'cc' | 'bcc' | 'payload';

/** What PATCH .../dispatches/{index} may change per type: the fields that type of action has. */
const CONTENT_FIELDS: Record<DispatchType, readonly ContentField[]> = {
  email: ['subject', 'body', 'to', 'cc', 'bcc'],
  message: ['body', 'to'],
  /** `to`: the attendees invited; `payload`: the event itself. */
  calendar_event: ['to', 'payload'],
  skill_action: ['payload'],
  /** The number called and what is said. */
  call: ['body', 'to'],
};

const FIXED_BY_EDIT = ['to', 'cc', 'bcc', 'payload'] as const;

const Address = z.email();
/** `ada@example.org` or `Ada Lovelace <ada@example.org>`. */
const isEmailRecipient = (r: string) => Address.safeParse((/<([^<>]+)>\s*$/.exec(r)?.[1] ?? r).trim()).success;

type Editable = { owned: OwnedCart; current: ShownDispatchRow };

/** The cart (locked) and the shown dispatch at `index`: 404 for a cart or dispatch not the caller's, 409 when the cart cannot change. */
async function editableDispatch(tx: Tx, person: UserActor, cartId: string, index: number): Promise<Editable> {
  const owned = await ownCart(tx, person, cartId, true);
  requireEditable(owned.cart);
  const current = (await shownDispatches(tx, [owned.cart.id])).get(owned.cart.id)?.find((d) => d.dispatch.index === index);
  if (!current) throw notFound('Dispatch');
  return { owned, current };
}

const emptyEdit = (fields: readonly string[]) => badRequest(`The edit changes nothing: send at least one of ${fields.join(', ')}`, {}, 'empty_edit');

/** Which fields of a dispatch's content an edit changed (the audit event names them, not their text). */
const changedKeys = (a: DispatchContent, b: DispatchContent) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !isDeepStrictEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));

/** Writes the new content as the person's version (when it differs) and answers the cart as it now is. */
async function commitContent(tx: Tx, person: UserActor, { owned, current }: Editable, next: DispatchContent) {
  if (isDeepStrictEqual(next, current.content)) return { ok: true as const, cart: await presentCart(tx, owned, owned.cart) };
  await addVersion(tx, current.dispatch, next, person.user.id);
  const { cart, shown } = await refreshCartHash(tx, owned.cart.id);
  await recordAudit(tx, person, 'cart.edited', { type: 'cart', id: cart.id }, { organizationId: person.user.organizationId, before: { dispatchIndex: current.dispatch.index, contentHash: owned.cart.contentHash }, after: { dispatchIndex: current.dispatch.index, contentHash: cart.contentHash, changed: changedKeys(current.content, next) } });
  return { ok: true as const, cart: toPublicCart(cart, owned, shown) };
}

/** PATCH .../edit: subject, body, validUntil, evergreen. Recipients and payload are not editable here (400 `edit_not_supported`). */
export async function editDispatch(db: Db, actor: Actor, cartId: string, index: number, input: z.infer<typeof EditDispatchBody>) {
  const person = requirePerson(actor);
  return db.transaction(async (tx) => {
    const target = await editableDispatch(tx, person, cartId, index);
    const c = target.current.content;
    const refused: FieldProblem[] = [
      ...FIXED_BY_EDIT.filter((f) => input[f] !== undefined && !isDeepStrictEqual(input[f], c[f])).map((field) => ({
        field,
        problem: 'cannot be edited here: recipients and payload change only through PATCH /portal/carts/{cartId}/dispatches/{index}',
      })),
      ...(['subject', 'body'] as const)
        .filter((f) => input[f] !== undefined && !EDITABLE_TEXT[c.type].includes(f))
        .map((field) => ({ field, problem: `a ${c.type} dispatch has no editable ${field}` })),
    ];
    if (refused.length) throw badRequest(refused.map((p) => `${p.field}: ${p.problem}`).join('; '), { fields: refused }, 'edit_not_supported');
    const next: DispatchContent = { ...c };
    if (input.subject !== undefined) next.subject = input.subject;
    if (input.body !== undefined) next.body = input.body;
    if (input.validUntil !== undefined) next.validUntil = input.validUntil;
    if (input.evergreen !== undefined) next.evergreen = input.evergreen;
    if (input.subject === undefined && input.body === undefined && input.validUntil === undefined && input.evergreen === undefined) {
      throw emptyEdit(['subject', 'body', 'validUntil', 'evergreen']);
    }
    return commitContent(tx, person, target, next);
  });
}

/** Problems of the recipients a dispatch would have after an update. */
function recipientProblems(next: DispatchContent): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (next.type === 'email' || next.type === 'calendar_event') {
    for (const field of ['to', 'cc', 'bcc'] as const) {
      next[field].forEach((r, i) => {
        if (!isEmailRecipient(r)) problems.push({ field: `${field}.${i}`, problem: 'must be an email address' });
      });
    }
  }
  if (next.type === 'email' && next.to.length + next.cc.length + next.bcc.length === 0) problems.push({ field: 'to', problem: 'an email needs at least one recipient' });
  if (next.type === 'message' && next.to.length !== 1) problems.push({ field: 'to', problem: 'a message goes to exactly one recipient' });
  if (next.type === 'call' && (next.to.length !== 1 || !/^\+[1-9]\d{6,14}$/.test(next.to[0]!))) problems.push({ field: 'to', problem: 'a call goes to exactly one phone number in E.164 form' });
  return problems;
}

/** PATCH .../dispatches/{index}: subject, body, to, cc, bcc, payload, as far as the dispatch's type has them. */
export async function updateDispatch(db: Db, actor: Actor, cartId: string, index: number, input: z.infer<typeof UpdateDispatchBody>) {
  const person = requirePerson(actor);
  return db.transaction(async (tx) => {
    const target = await editableDispatch(tx, person, cartId, index);
    const c = target.current.content;
    const given = (['subject', 'body', 'to', 'cc', 'bcc', 'payload'] as const).filter((f) => input[f] !== undefined);
    if (!given.length) throw emptyEdit(CONTENT_FIELDS[c.type]);
    const foreign = given.filter((f) => !CONTENT_FIELDS[c.type].includes(f));
    if (foreign.length) throw invalidFields(foreign.map((field) => ({ field, problem: `a ${c.type} dispatch has no ${field}` })));
    const next: DispatchContent = { ...c };
    if (input.subject !== undefined) next.subject = input.subject;
    if (input.body !== undefined) next.body = input.body;
    if (input.to !== undefined) next.to = input.to;
    if (input.cc !== undefined) next.cc = input.cc;
    if (input.bcc !== undefined) next.bcc = input.bcc;
    if (input.payload !== undefined) next.payload = input.payload;
    const problems = recipientProblems(next);
    if (problems.length) throw invalidFields(problems);
    return commitContent(tx, person, target, next);
  });
}

/** DELETE .../dispatches/{index}: the dispatch leaves the cart (its index is not reused); an emptied cart waits until cancelled. */
export async function removeDispatch(db: Db, actor: Actor, cartId: string, index: number) {
  const person = requirePerson(actor);
  return db.transaction(async (tx) => {
    const { owned, current } = await editableDispatch(tx, person, cartId, index);
    await tx.update(cartDispatches).set({ removedAt: new Date() }).where(eq(cartDispatches.id, current.dispatch.id));
    const { cart, shown } = await refreshCartHash(tx, owned.cart.id);
    await recordAudit(tx, person, 'cart.edited', { type: 'cart', id: cart.id }, { organizationId: person.user.organizationId, before: { dispatchIndex: current.dispatch.index, contentHash: owned.cart.contentHash }, after: { dispatchIndex: current.dispatch.index, contentHash: cart.contentHash, removed: true } });
    return { ok: true as const, cart: toPublicCart(cart, owned, shown) };
  });
}
