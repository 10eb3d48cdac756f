import { describe, expect, it } from 'vitest';
import { displayAddress, replyMail, replySubject } from '@/server/channels/email/transform';

/*
 * The hosted inbox's reply as mail, without a server: what the port's email adapter hands SMTP for
 * a turn's answer. The whole path (an owner's mail in, the answer out through the loopback SMTP
 * server) is tests/mail/email-conversation.
 */

const connection = { externalId: 'ada@assistants.example', name: 'Ada' };
const reply = {
  kind: 'reply' as const,
  to: 'owner@example.com',
  subject: 'Re: Lunch on Friday',
  text: 'Booked for noon.',
  replyTo: '<q2@example.com>',
  references: ['<q1@example.com>', '<a1@assistants.example>', '<q2@example.com>', '<new@assistants.example>'],
  ref: '<new@assistants.example>',
};

describe('the hosted inbox’s reply as mail', () => {
  it('answers the one person who wrote, from the assistant’s address, threaded on the message it answers', () => {
    const mail = replyMail(connection, reply);
    expect(mail).toEqual({
      from: '"Ada" <ada@assistants.example>',
      to: ['owner@example.com'],
      cc: [],
      bcc: [],
      subject: 'Re: Lunch on Friday',
      text: 'Booked for noon.',
      messageId: '<new@assistants.example>',
      inReplyTo: '<q2@example.com>',
      // Its own Message-ID is never one of its references.
      references: ['<q1@example.com>', '<a1@assistants.example>', '<q2@example.com>'],
      automated: false,
    });
  });

  it('says `Re:` once however deep the thread, and names a thread without a subject', () => {
    expect(replySubject('Lunch')).toBe('Re: Lunch');
    expect(replySubject('RE: Lunch')).toBe('RE: Lunch');
    expect(replySubject('  ')).toBe('Re: (no subject)');
    expect(replySubject(null)).toBe('Re: (no subject)');
  });

  it('quotes the display name, taking out what would end the quoting or start a header', () => {
    expect(displayAddress('Ada "the" \\ Bot\r\nBcc: x@evil.example', 'ada@assistants.example')).toBe('"Ada the  BotBcc: x@evil.example" <ada@assistants.example>');
    expect(displayAddress(null, 'ada@assistants.example')).toBe('ada@assistants.example');
  });

  it('refuses what the inbox does not send through the port, and a reply without its Message-ID or person', () => {
    expect(replyMail(connection, { ...reply, kind: 'notice' })).toEqual({ problem: 'the hosted inbox sends replies through the port, not a notice' });
    expect(replyMail(connection, { ...reply, kind: 'dispatch' })).toEqual({ problem: 'the hosted inbox sends replies through the port, not a dispatch' });
    expect(replyMail(connection, { ...reply, ref: null })).toEqual({ problem: 'no Message-ID was chosen before sending' });
    expect(replyMail(connection, { ...reply, to: null })).toEqual({ problem: 'a reply by email must name who it answers' });
  });
});
