import type { ShownCart } from '../slack/blocks';

/*
 * A cart waiting for its owner as an Adaptive Card (issue 33): every dispatch exactly as it will be
 * sent, as TextRuns (a RichTextBlock's TextRun shows its text literally; a TextBlock would read it as
 * markdown), with Approve and Reject as Action.Execute (the `adaptiveCard/action` invoke) whose data
 * binds the press to the cart version's contentHash; older clients fall back to Action.Submit with
 * the same data. A card too large for a Teams message gets no buttons and points to the approvals page.
 */

export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';
type Element = Record<string, unknown>;
export type AdaptiveCard = { type: 'AdaptiveCard'; $schema: string; version: string; body: Element[]; actions?: Element[] };

const MAX_CARD_BYTES = 24_000;
const list = (xs: string[]) => xs.join(', ') || 'nobody';
const literal = (text: string, extra: Element = {}): Element => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: text || ' ', ...extra }] });
const note = (text: string): Element => ({ type: 'TextBlock', text, wrap: true, isSubtle: true, size: 'Small' });

function dispatchElements(d: ShownCart['dispatches'][number], n: number, of: number): Element[] {
  const what = d.type === 'email' ? 'Email' : d.type === 'message' ? `${d.platform} message` : d.type === 'calendar_event' ? 'Calendar invitation' : 'Action';
  const lines = [`${of > 1 ? `${n}. ` : ''}${what} to ${list(d.to)}`, d.cc.length ? `Cc: ${list(d.cc)}` : null, d.bcc.length ? `Bcc: ${list(d.bcc)}` : null, d.from ? `From: ${d.from}` : null].filter(Boolean);
  const out: Element[] = [{ ...literal(lines.join('\n'), { weight: 'Bolder' }), separator: true }];
  if (d.subject !== null) out.push(literal(`Subject: ${d.subject}`));
  if (d.description) out.push(literal(d.description));
  if (d.body !== null) out.push(literal(d.body));
  if (d.payload && Object.keys(d.payload).length) out.push(literal(JSON.stringify(d.payload, null, 2), { fontType: 'Monospace' }));
  if (d.files.length) out.push(note(`Attached: ${d.files.map((f) => f.filename).join(', ')}`));
  if (d.heldBecause?.kind === 'untrusted_input') {
    const sources = d.heldBecause.sources.slice(0, 10).map((s) => `${s.kind} ${s.ref.replace(/\s+/g, ' ').slice(0, 200)}`);
    out.push(literal(`Held for your approval because the task read content from outside: ${sources.join('; ')}. Check it says what you want.`));
  }
  return out;
}

const card = (body: Element[], actions?: Element[]): AdaptiveCard => ({ type: 'AdaptiveCard', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', version: '1.4', body, ...(actions ? { actions } : {}) });

function button(verb: 'approve' | 'reject', cart: Pick<ShownCart, 'id' | 'contentHash'>): Element {
  const data = { cartId: cart.id, contentHash: cart.contentHash };
  const title = verb === 'approve' ? 'Approve' : 'Reject';
  return {
    type: 'Action.Execute',
    title,
    verb,
    data,
    style: verb === 'approve' ? 'positive' : 'destructive',
    fallback: { type: 'Action.Submit', title, data: { ...data, stewardAction: verb } },
  };
}

function contentOf(cart: ShownCart): Element[] {
  return [
    { type: 'TextBlock', text: `Approval needed: ${cart.taskTitle}`, weight: 'Bolder', size: 'Medium', wrap: true },
    note(`${cart.assistantName ?? 'Your assistant'} staged ${cart.dispatches.length === 1 ? 'this action' : `these ${cart.dispatches.length} actions`}. This is exactly what will be sent.`),
    ...cart.dispatches.flatMap((d, i) => dispatchElements(d, i + 1, cart.dispatches.length)),
  ];
}

export function approvalCard(cart: ShownCart, approvalsUrl: string): { card: AdaptiveCard; withButtons: boolean } {
  const full = card(contentOf(cart), [button('approve', cart), button('reject', cart)]);
  if (Buffer.byteLength(JSON.stringify(full)) <= MAX_CARD_BYTES) return { card: full, withButtons: true };
  return { card: card([contentOf(cart)[0]!, literal(`This approval is too long to show here in full, so it cannot be approved from Teams. Read and decide on it in your approvals: ${approvalsUrl}`)]), withButtons: false };
}

/** The card after a decision: the content stays, the buttons give way to the outcome. */
export function decidedCard(cart: ShownCart, outcome: string): AdaptiveCard {
  const body = contentOf(cart);
  const shown = Buffer.byteLength(JSON.stringify(body)) <= MAX_CARD_BYTES ? body : [body[0]!];
  return card([...shown, { type: 'TextBlock', text: outcome, wrap: true, weight: 'Bolder', separator: true }]);
}
