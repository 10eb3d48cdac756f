import type { Block } from './web-api';

/*
 * A cart waiting for its owner as a Block Kit message (issue 33): every dispatch exactly as it
 * will be sent — recipients, subject and the whole body, as plain text (Slack shows plain_text
 * literally; mrkdwn would reinterpret the body) — and Approve / Reject buttons whose value binds
 * the press to the cart version's contentHash. A cart too long for one message (Slack allows 50
 * blocks of at most 3,000 characters) gets no buttons: what cannot be shown whole is not approved
 * here, it is approved where it can be read (the approvals page).
 */

export const APPROVE_ACTION = 'steward_cart_approve';
export const REJECT_ACTION = 'steward_cart_reject';

/** What a card shows of a cart (the approvals area's public cart has this shape). */
export type ShownCart = {
  id: string;
  taskTitle: string;
  assistantName: string | null;
  contentHash: string;
  dispatches: Array<{
    index: number;
    type: string;
    platform: string;
    from: string | null;
    to: string[];
    cc: string[];
    bcc: string[];
    subject: string | null;
    body: string | null;
    description: string | null;
    payload: Record<string, unknown> | null;
    files: Array<{ filename: string }>;
    heldBecause?: { kind: string; sources: Array<{ kind: string; ref: string }> } | null;
  }>;
};

const MAX_BLOCKS = 50;
const CHUNK = 2_900;

const plain = (text: string): Block => ({ type: 'section', text: { type: 'plain_text', text: text || ' ', emoji: false } });
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'plain_text', text: text.slice(0, 2_900) || ' ', emoji: false }] });
const list = (xs: string[]) => xs.join(', ') || 'nobody';

function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += CHUNK) out.push(text.slice(i, i + CHUNK));
  return out.length ? out : [''];
}

function dispatchBlocks(d: ShownCart['dispatches'][number], n: number, of: number): Block[] {
  const what = d.type === 'email' ? 'Email' : d.type === 'message' ? `${d.platform} message` : d.type === 'calendar_event' ? 'Calendar invitation' : 'Action';
  const head = [`${of > 1 ? `${n}. ` : ''}${what} to ${list(d.to)}`, d.cc.length ? `Cc: ${list(d.cc)}` : null, d.bcc.length ? `Bcc: ${list(d.bcc)}` : null, d.from ? `From: ${d.from}` : null]
    .filter(Boolean)
    .join('\n');
  const blocks: Block[] = [{ type: 'divider' }, plain(head)];
  if (d.subject !== null) blocks.push(plain(`Subject: ${d.subject}`));
  if (d.description) blocks.push(plain(d.description));
  if (d.body !== null) for (const c of chunks(d.body)) blocks.push(plain(c));
  if (d.payload && Object.keys(d.payload).length) for (const c of chunks(JSON.stringify(d.payload, null, 2))) blocks.push(plain(c));
  if (d.files.length) blocks.push(context(`Attached: ${d.files.map((f) => f.filename).join(', ')}`));
  if (d.heldBecause?.kind === 'untrusted_input') {
    const sources = d.heldBecause.sources.slice(0, 10).map((s) => `${s.kind} ${s.ref.replace(/\s+/g, ' ').slice(0, 200)}`);
    blocks.push(context(`Held for your approval because the task read content from outside: ${sources.join('; ')}. Check it says what you want.`));
  }
  return blocks;
}

/** The buttons of one cart version: the value carries the cart and the hash of exactly this content. */
export function approvalButtons(cart: Pick<ShownCart, 'id' | 'contentHash'>): Block {
  const value = JSON.stringify({ cartId: cart.id, contentHash: cart.contentHash });
  return {
    type: 'actions',
    block_id: `cart:${cart.id}`,
    elements: [
      { type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value },
      { type: 'button', action_id: REJECT_ACTION, style: 'danger', text: { type: 'plain_text', text: 'Reject' }, value },
    ],
  };
}

export type ApprovalMessage = { text: string; blocks: Block[]; withButtons: boolean };

export function approvalMessage(cart: ShownCart, approvalsUrl: string): ApprovalMessage {
  const title = `Approval needed: ${cart.taskTitle}`.slice(0, 150);
  const head: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: title, emoji: false } },
    context(`${cart.assistantName ?? 'Your assistant'} staged ${cart.dispatches.length === 1 ? 'this action' : `these ${cart.dispatches.length} actions`}. This is exactly what will be sent.`),
  ];
  const body = cart.dispatches.flatMap((d, i) => dispatchBlocks(d, i + 1, cart.dispatches.length));
  if (head.length + body.length + 1 <= MAX_BLOCKS) return { text: title, blocks: [...head, ...body, approvalButtons(cart)], withButtons: true };
  return {
    text: title,
    blocks: [...head, plain(`This approval is too long to show here in full, so it cannot be approved from Slack. Read and decide on it in your approvals: ${approvalsUrl}`)],
    withButtons: false,
  };
}

/** The message after a press: the content stays for the record, the buttons give way to the outcome. */
export function decidedMessage(posted: Block[], outcome: string): Block[] {
  const kept = posted.filter((b) => b.type !== 'actions');
  return [...kept.slice(0, MAX_BLOCKS - 1), { type: 'section', text: { type: 'mrkdwn', text: outcome.slice(0, 2_900) } }];
}
