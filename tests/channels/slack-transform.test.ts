import { describe, expect, it } from 'vitest';
import { audienceOfThread, bindingOf, blocksOf, channelOf, isMention, messageRefOf, parseMessageRef, parseThread, placeOf, pressedAt, routingOf, threadOf } from '@/server/channels/slack/transform';
import { SlackMessageEvent } from '@/server/channels/slack/contracts';

/*
 * Slack's mapping to and from the port's common form (server/channels/slack/transform.ts), without a
 * server: threads name the person of a 1:1 conversation, references the DM a message is in, a
 * mention is answered in its writer's DM, and references written before the port still read.
 */

const event = (e: Record<string, unknown>) => SlackMessageEvent.parse({ type: 'message', ts: '1700000000.000100', channel: 'D0OWNER', user: 'U0OWNER', text: 'hi', ...e });

describe('Slack threads and references', () => {
  it('round-trip; the thread of a 1:1 conversation names its person', () => {
    const t = { appId: 'app1', teamId: 'T1', conversation: 'U0OWNER', threadTs: null };
    expect(parseThread(threadOf(t))).toEqual(t);
    expect(parseThread(threadOf({ ...t, threadTs: '1700000000.000001' }))).toEqual({ ...t, threadTs: '1700000000.000001' });
    const ref = messageRefOf(threadOf(t), '1700000000.000100', 'D0OWNER');
    expect(ref).toBe('slack:app1:T1:U0OWNER#1700000000.000100@D0OWNER');
    expect(parseMessageRef(ref)).toEqual({ ...t, ts: '1700000000.000100', in: 'D0OWNER' });
    expect(audienceOfThread(threadOf(t))).toEqual({ kind: 'direct', person: 'U0OWNER' });
    expect(audienceOfThread(threadOf({ ...t, conversation: 'C0ROOM' }))).toMatchObject({ kind: 'room' });
    for (const junk of ['slack:', 'slack:a:b', 'slack:a:b:c:notats', 'slack:a:b:c#nots', 'teams:a:b:c', `slack:a:b:c#1.2@${'x'.repeat(70)}`]) {
      expect(parseMessageRef(junk), junk).toBeNull();
      expect(audienceOfThread(junk).kind, junk).toBe('room');
    }
  });

  it('a DM is its own conversation, answered under the message in the DM; a mention is answered in the writer’s DM, one conversation per channel thread', () => {
    const dm = routingOf('message', event({ channel_type: 'im' }), 'UBOT');
    expect(dm.kind).toBe('dm');
    const dmPlace = placeOf('app1', 'T1', dm as Extract<typeof dm, { kind: 'dm' }>);
    expect(dmPlace).toEqual({ thread: 'slack:app1:T1:U0OWNER', messageRef: 'slack:app1:T1:U0OWNER#1700000000.000100@D0OWNER', conversationKey: 'D0OWNER' });
    const dmRef = parseMessageRef(dmPlace.messageRef)!;
    expect(isMention(dmRef)).toBe(false);
    expect(channelOf(dmRef)).toBe('D0OWNER');

    const mention = routingOf('app_mention', event({ type: 'app_mention', channel: 'C0PROJECT', thread_ts: '1700000000.000001' }), 'UBOT');
    const mentionPlace = placeOf('app1', 'T1', mention as Extract<typeof mention, { kind: 'mention' }>);
    expect(mentionPlace.thread).toBe('slack:app1:T1:U0OWNER');
    expect(mentionPlace.conversationKey).toBe('C0PROJECT:1700000000.000001');
    expect(isMention(parseMessageRef(mentionPlace.messageRef)!)).toBe(true);

    // Not a person's new message: the bot's own, an edit, a channel message without a mention, another event.
    expect(routingOf('message', event({ channel_type: 'im', user: 'UBOT' }), 'UBOT').kind).toBe('ignored');
    expect(routingOf('message', event({ channel_type: 'im', subtype: 'message_changed' }), 'UBOT').kind).toBe('ignored');
    expect(routingOf('message', event({ channel: 'C0ROOM', channel_type: 'channel' }), 'UBOT').kind).toBe('ignored');
    expect(routingOf('reaction_added', null, 'UBOT').kind).toBe('ignored');
    // Files alone are a message.
    expect(routingOf('message', event({ channel_type: 'im', subtype: 'file_share', text: '' }), 'UBOT').kind).toBe('dm');
  });

  it('reads references written before the port', () => {
    expect(parseMessageRef('slack:app1:T1:D0OWNER:1700000000.000001:1700000000.000100')).toEqual({ appId: 'app1', teamId: 'T1', conversation: 'D0OWNER', threadTs: '1700000000.000001', ts: '1700000000.000100', in: null });
    const mention = parseMessageRef('slack:app1:T1:U0OWNER:-:1700000000.000100:C0PROJECT')!;
    expect(mention).toMatchObject({ conversation: 'U0OWNER', threadTs: null, in: 'C0PROJECT' });
    expect(isMention(mention)).toBe(true);
    expect(audienceOfThread('slack:app1:T1:D0OWNER:-:1700000000.000100')).toEqual({ kind: 'direct', person: 'D0OWNER' });
  });

  it('a pressed card in a DM is in its presser’s 1:1 thread; elsewhere in its channel’s', () => {
    expect(pressedAt('app1', 'T1', 'U0OWNER', 'D0OWNER', '1700000000.000200')).toEqual({ thread: 'slack:app1:T1:U0OWNER', messageRef: 'slack:app1:T1:U0OWNER#1700000000.000200@D0OWNER' });
    expect(pressedAt('app1', 'T1', 'U0OWNER', 'C0ROOM', '1700000000.000200')).toEqual({ thread: 'slack:app1:T1:C0ROOM', messageRef: 'slack:app1:T1:C0ROOM#1700000000.000200' });
  });
});

describe('Slack buttons', () => {
  it('carry the binding alone, after the words as plain text; a value of a card from before the port reads as its cart and hash', () => {
    const blocks = blocksOf('*Send* it?\n'.repeat(400), [
      { text: 'Approve', decision: 'approve', binding: 'post_1' },
      { text: 'Reject', decision: 'reject', binding: 'post_1' },
    ]);
    const sections = blocks.filter((b) => b.type === 'section');
    expect(sections.map((b) => (b.text as { type: string; text: string }).text).join('')).toBe('*Send* it?\n'.repeat(400));
    expect(sections.every((b) => (b.text as { type: string }).type === 'plain_text')).toBe(true);
    const actions = blocks.at(-1)!;
    expect((actions.elements as Array<{ value: string }>).map((e) => e.value)).toEqual(['post_1', 'post_1']);
    expect(bindingOf('post_1')).toEqual({ binding: 'post_1' });
    expect(bindingOf(JSON.stringify({ cartId: 'c1', contentHash: 'h1' }))).toEqual({ cartId: 'c1', contentHash: 'h1' });
    for (const bad of [undefined, '', '{"cartId":1}', '{nope', 'has spaces']) expect(bindingOf(bad), String(bad)).toBeNull();
  });
});
