import { describe, expect, it } from 'vitest';
import {
  audienceOfThread,
  callbackData,
  chunks,
  filesOf,
  linkCodeOf,
  messageRefOf,
  parseCallbackData,
  parseMessageRef,
  parseThread,
  parseUpdate,
  sendMessageParams,
  targetOf,
  TgUpdate,
  threadOf,
} from '@/server/channels/telegram/transform';

/*
 * Telegram's objects to and from the port's common form: pure functions, no server, no database.
 */

const BOT = '7000000001';
const person = { id: 4242, is_bot: false, first_name: 'Ada', last_name: 'Lovelace' };
const update = (u: Record<string, unknown>) => TgUpdate.parse({ update_id: 1, ...u });
const message = (m: Record<string, unknown>) => ({ message_id: 10, date: 1, from: person, chat: { id: 4242, type: 'private' }, ...m });

describe('threads', () => {
  it('a chat (and a forum topic) round-trips; a private chat is read by its person alone, a group by a room', () => {
    expect(threadOf(BOT, '4242')).toBe(`telegram:${BOT}:4242`);
    expect(parseThread(threadOf(BOT, '-100123', 7))).toEqual({ botId: BOT, chatId: '-100123', topicId: 7 });
    expect(parseThread('slack:T1:C1')).toBeNull();
    expect(parseMessageRef(messageRefOf(threadOf(BOT, '4242'), 99))).toEqual({ botId: BOT, chatId: '4242', topicId: null, messageId: 99 });
    expect(parseMessageRef(`telegram:${BOT}:4242#x`)).toBeNull();
    expect(audienceOfThread(threadOf(BOT, '4242'))).toEqual({ kind: 'direct', person: '4242' });
    expect(audienceOfThread(threadOf(BOT, '-100123'))).toMatchObject({ kind: 'room' });
    expect(audienceOfThread('nonsense')).toMatchObject({ kind: 'room' });
  });

  it('a send goes to a thread, or to a person by their user id; anything else is no target', () => {
    expect(targetOf(threadOf(BOT, '-5', 3), null)).toEqual({ chatId: '-5', topicId: 3 });
    expect(targetOf(null, '4242')).toEqual({ chatId: '4242', topicId: null });
    expect(targetOf(null, 'bob@example.com')).toBeNull();
  });
});

describe('updates', () => {
  it('a person’s private message: its thread, reference, text and the /start code', () => {
    const u = parseUpdate(update({ message: message({ text: '/start abcdefghijklmnopqrstuvwx' }) }), BOT);
    expect(u).toMatchObject({ kind: 'message', externalId: '1', thread: `telegram:${BOT}:4242`, messageRef: `telegram:${BOT}:4242#10`, linkCode: 'abcdefghijklmnopqrstuvwx' });
    expect(linkCodeOf('/start short')).toBeNull();
    expect(linkCodeOf('hello /start abcdefghijklmnopqrstuvwx')).toBeNull();
  });

  it('a /start in a group links nobody; a file’s caption is its text; the largest photo is the one taken', () => {
    const g = parseUpdate(update({ message: message({ chat: { id: -77, type: 'group', title: 'Room' }, text: '/start abcdefghijklmnopqrstuvwx' }) }), BOT);
    expect(g).toMatchObject({ kind: 'message', linkCode: null, thread: `telegram:${BOT}:-77` });
    const withPhoto = update({ message: message({ caption: 'look', photo: [{ file_id: 'small', width: 90, height: 90 }, { file_id: 'big', width: 1280, height: 960 }] }) });
    expect(filesOf(withPhoto.message!)).toEqual([{ fileId: 'big', filename: 'photo-10.jpg', contentType: 'image/jpeg' }]);
    expect(parseUpdate(withPhoto, BOT)).toMatchObject({ kind: 'message', text: 'look' });
  });

  it('edits, other bots, channel posts and service messages are not messages', () => {
    expect(parseUpdate(update({ edited_message: message({ text: 'x' }) }), BOT)).toMatchObject({ kind: 'ignored' });
    expect(parseUpdate(update({ message: message({ from: { ...person, is_bot: true }, text: 'x' }) }), BOT)).toMatchObject({ kind: 'ignored' });
    expect(parseUpdate(update({ channel_post: message({ text: 'x' }) }), BOT)).toMatchObject({ kind: 'ignored' });
    expect(parseUpdate(update({ message: message({}) }), BOT)).toMatchObject({ kind: 'ignored', reason: 'a service message' });
  });

  it('a press is Steward’s only with its callback data and the message it was on', () => {
    const data = callbackData({ decision: 'approve', binding: 'a1b2c3d4e5f6a1b2c3d4e5f6' });
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(parseCallbackData(data)).toEqual({ decision: 'approve', binding: 'a1b2c3d4e5f6a1b2c3d4e5f6' });
    expect(parseCallbackData('st:x:a1b2c3d4e5f6')).toBeNull();
    const press = parseUpdate(update({ callback_query: { id: 'q1', from: person, data, message: message({ text: 'card' }) } }), BOT);
    expect(press).toMatchObject({ kind: 'press', decision: 'approve', callbackId: 'q1', messageRef: `telegram:${BOT}:4242#10` });
    expect(parseUpdate(update({ callback_query: { id: 'q2', from: person, data: 'somebody-elses' } }), BOT)).toMatchObject({ kind: 'ignored' });
    expect(parseUpdate(update({ callback_query: { id: 'q3', from: person, data } }), BOT)).toMatchObject({ kind: 'ignored', reason: 'a press without its message' });
    expect(() => callbackData({ decision: 'reject', binding: 'x'.repeat(70) })).toThrow();
  });

  it('ids as numbers or strings, and a malformed update is refused by the schema', () => {
    expect(TgUpdate.parse({ update_id: 2, message: message({ chat: { id: '-100', type: 'supergroup' }, text: 'hi' }) }).message!.chat.id).toBe('-100');
    expect(TgUpdate.safeParse({ update_id: 'x' }).success).toBe(false);
  });
});

describe('outbound', () => {
  it('sendMessage: plain text, in the topic, as a reply, with the inline keyboard', () => {
    const params = sendMessageParams({ chatId: '-5', topicId: 3, text: '*as written*', replyTo: 10, buttons: [{ text: 'Approve', decision: 'approve', binding: 'abcdefgh12345678' }] });
    expect(params).toMatchObject({ chat_id: '-5', text: '*as written*', message_thread_id: 3, reply_parameters: { message_id: 10 } });
    expect(params).not.toHaveProperty('parse_mode');
    expect(params.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Approve', callback_data: 'st:a:abcdefgh12345678' }]] });
  });

  it('text over 4096 characters goes in parts, split at a line break where it can, nothing lost', () => {
    const long = `${'a'.repeat(3000)}\n${'b'.repeat(3000)}`;
    const parts = chunks(long);
    expect(parts).toEqual(['a'.repeat(3000), 'b'.repeat(3000)]);
    const unbroken = 'c'.repeat(9000);
    expect(chunks(unbroken).map((p) => p.length)).toEqual([4096, 4096, 808]);
    expect(chunks('short')).toEqual(['short']);
  });
});
