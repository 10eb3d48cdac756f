import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@/db/client';
import type { ChannelAdapter, Connection, InboundEvent, OutboundFile, SendRequest, WebhookRequest } from '@/server/channels/adapter';
import { threadOfRef } from '@/server/channels/adapters';
import type { Delivery } from '@/server/channels/message';
import { call, newUser, userKey, type AccountFixture } from '../helpers/client';
import type { TestServer } from '../helpers/server';

/*
 * The channel port's contract (issue 41): what every ChannelAdapter must do, checked through the
 * port's interface alone, against the channel's loopback stand-in and a real test database. A
 * channel moving behind the port writes a fixture (how to connect the assistant, build its
 * provider's requests, read what its stand-in recorded) and calls describeAdapterContract; the
 * checks below are the same for every channel. What the core relies on is named where it is
 * checked (port-inbound.ts, replies.ts, reply-readers.ts, channel-approvals.ts).
 */

/** A person of the provider, as the adapter's ChannelPerson names them. */
export type ContractPerson = { workspaceId: string; userId: string };

/**
 * A conversation the fixture can write in. `wireId` is the stand-in's own name for where a
 * message went (a chat id, a channel and thread): how the contract sees that a send reached it
 * without reading the adapter's thread encoding. `audience`: who reads it, as the provider knows.
 */
export type Conversation = { label: string; audience: 'direct' | 'room'; wireId: string };

/** One provider request to the webhook as it arrives, and the same body unsigned or wrongly signed. */
export type Delivered = { genuine: WebhookRequest; unsigned: WebhookRequest; wronglySigned: WebhookRequest; stale?: WebhookRequest };

/** What the stand-in recorded, in the provider's terms: its message id, where it went, what it carried. */
export type RecordedMessage = { wireId: string; id: string; text: string; replyTo: string | null; buttons: Array<{ text: string; data: string }> };
export type RecordedFile = { wireId: string; id: string; filename: string; contentType: string; content: Buffer };
export type RecordedEdit = { wireId: string; id: string; text: string; buttons: number };

/** One connection of a fresh assistant, with the stand-in's view of it. */
export type Connected = {
  connection: Connection;
  /** Someone new on the provider who can write to this connection. */
  newPerson(): ContractPerson;
  /** The person's 1:1 conversation with the connection. */
  direct(person: ContractPerson): Conversation;
  /** Every other kind of conversation the provider has (groups, rooms, topics), the person in it. */
  others(person: ContractPerson): Conversation[];
  /** What a dispatch names the person by (`to`, with no thread). */
  address(person: ContractPerson): string;
  message(from: ContractPerson, where: Conversation, text: string): Delivered;
  /** A person's message carrying a file (files capability). */
  messageWithFile?(from: ContractPerson, where: Conversation, file: OutboundFile): Delivered;
  /** A request signed as the provider signs, whose body is not one the provider sends. */
  malformed?(): Delivered;
  /** Something the provider posts that is no new message by a person (an edit, a bot's post). */
  notAMessage?(from: ContractPerson, where: Conversation): Delivered;
  /** A press of a button of a recorded message, carrying `data` (buttons capability). */
  press?(from: ContractPerson, on: RecordedMessage, data: string): Delivered;
  sent(): RecordedMessage[];
  files(): RecordedFile[];
  edits(): RecordedEdit[];
  /** What the presser was answered (a toast). */
  acknowledged(): string[];
  /**
   * A provider that offers a file before it delivers it (Teams' file consent card): the person
   * allows every file offered so far, and the delivery that follows is waited for.
   */
  allowFiles?(): Promise<void>;
  /** The stand-in refuses the next message or file as its provider refuses one (a chat it does not know). */
  refuseNext(what: 'message' | 'file'): void;
};

export type AdapterFixture = {
  adapter: ChannelAdapter;
  db: () => Db;
  /** Whether a genuine request proves who wrote (the provider vouches for the id). */
  provesSender: boolean;
  /**
   * One bot for the whole deployment (Teams): the webhook's connection names no assistant (each
   * event names the writer's), so which connection a request is handed with does not make it
   * anyone else's, and the webhook's key finds that bot rather than an assistant's connection.
   */
  deploymentBot?: boolean;
  connect(): Promise<Connected>;
};

/** A user of the account who hired an assistant through the API, as the fixtures' connections start: their key and the assistant. */
export async function userWithAssistant(server: TestServer, acct: AccountFixture) {
  const user = await newUser(server, acct);
  const key = await userKey(server, acct, user.id);
  const hired = await call(server, `/users/${user.id}/assistants`, { key, body: { name: 'Ada' } });
  expect(hired.status, JSON.stringify(hired.body)).toBeLessThan(300);
  return { ...user, key, assistantId: hired.body.assistant.id as string };
}

type Message = Extract<InboundEvent, { kind: 'message' }>;
type Press = Extract<InboundEvent, { kind: 'press' }>;

const SENT = ['accepted', 'delivered'];
const token = () => `b${randomBytes(10).toString('hex')}`;
/** Bytes no text encoding survives, with a line break and dashes a careless multipart body would cut at. */
const awkwardBytes = () => Buffer.concat([Buffer.from([0, 0xff, 0xfe, 13, 10, 45, 45]), randomBytes(64), Buffer.from('\r\n--\r\n')]);
const added = <T>(list: () => T[], before: number) => list().slice(before);

export function describeAdapterContract(f: AdapterFixture) {
  const { adapter } = f;
  const ch = adapter.channel;
  let a: Connected;
  let b: Connected;

  async function parsed(d: Delivered): Promise<InboundEvent> {
    expect(await adapter.verifyWebhook(f.db(), d.genuine)).toEqual({ ok: true });
    return adapter.parseWebhook(f.db(), d.genuine);
  }
  async function messageOf(d: Delivered): Promise<Message> {
    const e = await parsed(d);
    expect(e.kind).toBe('message');
    return e as Message;
  }
  /** The person's 1:1 thread, as the core names it from their link (made through connection `a`). */
  const directOf = (person: ContractPerson) => adapter.directThread({ ...person, linkedThrough: a.connection.id });
  const send = (req: Omit<SendRequest, 'connection' | 'files'> & { files?: OutboundFile[] }, on = a): Promise<Delivery> => adapter.send(f.db(), { files: [], ...req, connection: on.connection });
  /** A send the core counts as sent: accepted, its id the message's reference in the thread (what a reply, a press and closeButtons name it by). */
  function expectSent(d: Delivery, recorded: { id: string } | undefined, thread: string | null) {
    expect(d.state, JSON.stringify(d)).toSatisfy((s: string) => SENT.includes(s));
    expect(recorded).toBeDefined();
    expect(d.providerMessageId).toBe(`${thread ?? threadOfRef(d.providerMessageId)}#${recorded!.id}`);
  }
  function expectNotSent(d: Delivery) {
    expect(SENT).not.toContain(d.state);
    expect('reason' in d && d.reason.length > 0).toBe(true);
  }

  describe(`the channel port's contract: ${ch}`, () => {
    beforeAll(async () => {
      a = await f.connect();
      b = await f.connect();
    });

    it('offers the optional methods its capabilities say, and no others', () => {
      expect(typeof adapter.channel).toBe('string');
      expect(Boolean(adapter.closeButtons)).toBe(Boolean(adapter.capabilities.edits));
      // A fixture that cannot exercise a capability the adapter claims would leave it unchecked.
      if (adapter.capabilities.buttons) expect(a.press, 'buttons: the fixture must build presses').toBeTypeOf('function');
      if (adapter.capabilities.files) expect(a.messageWithFile, 'files: the fixture must build a message with a file').toBeTypeOf('function');
      if (adapter.capabilities.groups) expect(a.others(a.newPerson()).some((c) => c.audience === 'room')).toBe(true);
    });

    it('finds a connection by its key and the assistant’s; an unknown key or assistant finds none', async () => {
      if (f.deploymentBot) expect(await adapter.connection(f.db(), a.connection.id)).toMatchObject({ id: a.connection.id, channel: ch });
      else expect(await adapter.connection(f.db(), a.connection.id)).toEqual(a.connection);
      expect(await adapter.connectionFor(f.db(), a.connection.assistantId)).toEqual(a.connection);
      expect(a.connection.channel).toBe(ch);
      expect(await adapter.connection(f.db(), 'no-such-connection')).toBeNull();
      expect(await adapter.connection(f.db(), randomBytes(12).toString('hex'))).toBeNull();
      expect(await adapter.connectionFor(f.db(), randomBytes(12).toString('hex'))).toBeNull();
    });

    it('verifies: unsigned, wrongly signed, stale, or signed for another connection is refused; the genuine request is accepted', async () => {
      const person = a.newPerson();
      const d = a.message(person, a.direct(person), 'hello');
      const refused: Array<[string, WebhookRequest]> = [
        ['unsigned', d.unsigned],
        ['wrongly signed', d.wronglySigned],
      ];
      if (!f.deploymentBot) {
        refused.push(['another connection’s', { ...d.genuine, connection: b.connection }]);
        refused.push(['for a connection that is gone', { ...d.genuine, connection: { ...a.connection, id: randomBytes(12).toString('hex') } }]);
      }
      if (d.stale) refused.push(['stale', d.stale]);
      for (const [what, req] of refused) {
        const v = await adapter.verifyWebhook(f.db(), req);
        expect(v.ok, what).toBe(false);
        if (!v.ok) {
          expect([401, 403, 404], what).toContain(v.status);
          expect(v.reason.length, what).toBeGreaterThan(0);
        }
      }
      expect(await adapter.verifyWebhook(f.db(), d.genuine)).toEqual({ ok: true });
      // Genuinely the provider's, yet not what it sends: refused or ignored, never a message or a press.
      if (a.malformed) {
        const bad = a.malformed();
        expect(await adapter.verifyWebhook(f.db(), bad.genuine)).toEqual({ ok: true });
        const kind = await adapter.parseWebhook(f.db(), bad.genuine).then(
          (e) => e.kind,
          () => 'refused',
        );
        expect(['refused', 'ignored']).toContain(kind);
      }
    });

    it('parses a 1:1 message: its words, the proven sender, a thread of the channel, a reference in it, the person alone reading it', async () => {
      const person = a.newPerson();
      const e = await messageOf(a.message(person, a.direct(person), 'Lunch on Friday?'));
      expect(e.text).toBe('Lunch on Friday?');
      expect(e.person).toMatchObject({ ...person, proven: f.provesSender });
      expect(e.thread.startsWith(`${ch}:`)).toBe(true);
      expect(e.messageRef.startsWith(`${e.thread}#`)).toBe(true);
      expect(e.messageRef.length).toBeGreaterThan(e.thread.length + 1);
      // The core reads the thread back from the reference (replies.ts) and asks who reads it (reply-readers.ts).
      expect(threadOfRef(e.messageRef)).toBe(e.thread);
      expect(e.audience).toEqual({ kind: 'direct', person: person.userId });
      expect(adapter.audienceOf(e.thread)).toEqual({ kind: 'direct', person: person.userId });
      expect(e.files).toEqual([]);
    });

    it('gives a delivery one id: the same request twice is the same event, another message another one', async () => {
      const person = a.newPerson();
      const d = a.message(person, a.direct(person), 'once');
      const first = await messageOf(d);
      const again = await messageOf(d);
      expect(again.externalId).toBe(first.externalId);
      expect(again.messageRef).toBe(first.messageRef);
      const other = await messageOf(a.message(person, a.direct(person), 'once'));
      expect(other.externalId).not.toBe(first.externalId);
      expect(other.messageRef).not.toBe(first.messageRef);
    });

    it('says who reads every kind of conversation, the same way inbound and outbound; an unknown thread is never 1:1', async () => {
      const person = a.newPerson();
      for (const where of [a.direct(person), ...a.others(person)]) {
        const e = await messageOf(a.message(person, where, `in ${where.label}`));
        // port-inbound.ts routes by the event's audience; the answer's readers come from audienceOf(thread): they must agree.
        expect(e.person, where.label).toMatchObject({ ...person, proven: f.provesSender });
        expect(e.audience.kind, where.label).toBe(where.audience);
        expect(adapter.audienceOf(e.thread).kind, where.label).toBe(where.audience);
        if (where.audience === 'direct') expect(adapter.audienceOf(e.thread), where.label).toEqual({ kind: 'direct', person: person.userId });
      }
      expect(adapter.audienceOf(directOf(person))).toEqual({ kind: 'direct', person: person.userId });
      for (const junk of ['nonsense', `${ch}:`, `${ch}:x:y:z:w`, `other:${person.userId}`]) expect(adapter.audienceOf(junk).kind, junk).toBe('room');
    });

    it('answers in the thread a message came in, threaded on it, in every kind of conversation', async () => {
      const person = a.newPerson();
      for (const where of [a.direct(person), ...a.others(person)]) {
        const e = await messageOf(a.message(person, where, `question in ${where.label}`));
        const before = a.sent().length;
        const d = await send({ kind: 'reply', thread: threadOfRef(e.messageRef), replyTo: e.messageRef, text: `answer in ${where.label}` });
        const got = added(a.sent, before);
        expect(got, where.label).toHaveLength(1);
        expect(got[0], where.label).toMatchObject({ wireId: where.wireId, text: `answer in ${where.label}`, replyTo: e.messageRef.slice(e.thread.length + 1), buttons: [] });
        expectSent(d, got[0], e.thread);
      }
    });

    it('sends a notice and a code into the person’s 1:1 thread, and a dispatch to their address', async () => {
      const person = a.newPerson();
      const thread = directOf(person);
      expect(thread.startsWith(`${ch}:`)).toBe(true);
      for (const kind of ['notice', 'code', 'dispatch'] as const) {
        const before = a.sent().length;
        const d = await send({ kind, thread, text: `a ${kind}` });
        const got = added(a.sent, before);
        expect(got, kind).toHaveLength(1);
        expect(got[0], kind).toMatchObject({ wireId: a.direct(person).wireId, text: `a ${kind}`, replyTo: null });
        expectSent(d, got[0], thread);
      }
      const before = a.sent().length;
      const d = await send({ kind: 'dispatch', thread: null, to: a.address(person), text: 'to them by address' });
      const got = added(a.sent, before);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ wireId: a.direct(person).wireId, text: 'to them by address' });
      expectSent(d, got[0], null);
      // Approvals are posted into directThread and decided where they were shown: the reference's thread is the person's alone.
      expect(adapter.audienceOf(threadOfRef(d.providerMessageId)!)).toEqual({ kind: 'direct', person: person.userId });
    });

    it('never claims a send that did not happen: refused by the provider, nothing to send, no such target, a connection that is gone', async () => {
      const person = a.newPerson();
      const thread = directOf(person);
      const before = a.sent().length;
      a.refuseNext('message');
      expectNotSent(await send({ kind: 'reply', thread, text: 'refused' }));
      expectNotSent(await send({ kind: 'notice', thread, text: '' }));
      expectNotSent(await send({ kind: 'dispatch', thread: null, to: 'not an address at all', text: 'nowhere' }));
      expectNotSent(await send({ kind: 'dispatch', thread: null, to: null, text: 'nowhere' }));
      expectNotSent(await adapter.send(f.db(), { kind: 'notice', connection: { ...a.connection, id: randomBytes(12).toString('hex') }, thread, text: 'gone', files: [] }));
      expect(added(a.sent, before)).toEqual([]);
      // The stand-in refused once only: the next send goes.
      const d = await send({ kind: 'reply', thread, text: 'after the refusal' });
      expectSent(d, added(a.sent, before)[0], thread);
    });

    it('ignores what is no new message by a person', async () => {
      if (!a.notAMessage) return;
      const person = a.newPerson();
      const e = await parsed(a.notAMessage(person, a.direct(person)));
      expect(e.kind).toBe('ignored');
    });

    describe.runIf(adapter.capabilities.files)('files', () => {
      it('an outbound file arrives whole, with or without words; a refused file is not reported sent', async () => {
        const person = a.newPerson();
        const thread = directOf(person);
        const content = awkwardBytes();
        const beforeFiles = a.files().length;
        const beforeSent = a.sent().length;
        const d = await send({ kind: 'dispatch', thread, text: 'the plan', files: [{ filename: 'plan.bin', contentType: 'application/octet-stream', content }] });
        expect(SENT).toContain(d.state);
        await a.allowFiles?.();
        const [file] = added(a.files, beforeFiles);
        expect(file).toMatchObject({ wireId: a.direct(person).wireId, filename: 'plan.bin', contentType: 'application/octet-stream' });
        expect(file!.content.equals(content)).toBe(true);
        expect(added(a.sent, beforeSent).map((m) => m.text)).toEqual(['the plan']);

        const alone = await send({ kind: 'dispatch', thread, text: '', files: [{ filename: 'only.txt', contentType: 'text/plain', content: Buffer.from('just the file') }] });
        await a.allowFiles?.();
        const [only] = added(a.files, beforeFiles + 1);
        expectSent(alone, only, thread);
        expect(only!.content.toString()).toBe('just the file');

        a.refuseNext('file');
        expectNotSent(await send({ kind: 'dispatch', thread, text: 'with a refused file', files: [{ filename: 'x.txt', contentType: 'text/plain', content: Buffer.from('x') }] }));
        await a.allowFiles?.();
        expect(added(a.files, beforeFiles + 2)).toEqual([]);
      });

      it('an inbound file is named on the message and fetched only when asked, whole', async () => {
        const person = a.newPerson();
        const content = awkwardBytes();
        const e = await messageOf(a.messageWithFile!(person, a.direct(person), { filename: 'receipt.pdf', contentType: 'application/pdf', content }));
        expect(e.files).toHaveLength(1);
        expect(e.files[0]).toMatchObject({ filename: 'receipt.pdf', contentType: 'application/pdf' });
        const got = await e.files[0]!.fetch();
        expect('problem' in got ? got.problem : null).toBeNull();
        if (!('problem' in got)) expect(got.content.equals(content)).toBe(true);
      });
    });

    describe.runIf(adapter.capabilities.buttons)('buttons', () => {
      it('carry the binding token alone; a press comes back with it, its decision, the proven presser and where the card is', async () => {
        const person = a.newPerson();
        const thread = directOf(person);
        const binding = token();
        const before = a.sent().length;
        const d = await send({
          kind: 'notice',
          thread,
          text: 'Send the mail to Bob? cart c_123 hash deadbeef',
          buttons: [
            { text: 'Approve', decision: 'approve', binding },
            { text: 'Reject', decision: 'reject', binding },
          ],
        });
        const [card] = added(a.sent, before);
        expectSent(d, card, thread);
        expect(card!.buttons.map((x) => x.text)).toEqual(['Approve', 'Reject']);
        for (const x of card!.buttons) {
          expect(x.data).toContain(binding);
          // Nothing but the token (and the decision) rides on the button: not the words, not what they name.
          expect(x.data.length).toBeLessThanOrEqual(binding.length + 16);
          for (const word of ['deadbeef', 'c_123', 'Bob']) expect(x.data).not.toContain(word);
        }
        for (const [i, decision] of (['approve', 'reject'] as const).entries()) {
          const delivered = a.press!(person, card!, card!.buttons[i]!.data);
          const e = (await parsed(delivered)) as Press;
          expect(e).toMatchObject({ kind: 'press', binding, decision, person: { ...person, proven: f.provesSender }, shownIn: { thread, messageRef: d.providerMessageId } });
          expect(((await parsed(delivered)) as Press).externalId).toBe(e.externalId);
          const v = await adapter.verifyWebhook(f.db(), delivered.unsigned);
          expect(v.ok).toBe(false);
          // The presser hears the outcome: a toast, or where the provider waits for it, the webhook's answer.
          if (e.answer) expect(JSON.stringify(e.answer(`Decided: ${decision}`, true))).toContain(`Decided: ${decision}`);
          else {
            const acks = a.acknowledged().length;
            await e.acknowledge(`Decided: ${decision}`);
            expect(added(a.acknowledged, acks)).toEqual([`Decided: ${decision}`]);
          }
        }
      });

      it('a button that is not Steward’s is ignored', async () => {
        const person = a.newPerson();
        const before = a.sent().length;
        await send({ kind: 'notice', thread: directOf(person), text: 'card', buttons: [{ text: 'Approve', decision: 'approve', binding: token() }] });
        const [card] = added(a.sent, before);
        expect((await parsed(a.press!(person, card!, 'someone-elses-button'))).kind).toBe('ignored');
      });
    });

    describe.runIf(adapter.capabilities.edits)('edits', () => {
      it('closeButtons replaces the card’s buttons with a line, on the message the send named', async () => {
        const person = a.newPerson();
        const thread = directOf(person);
        const before = a.sent().length;
        const d = await send({ kind: 'notice', thread, text: 'card', buttons: adapter.capabilities.buttons ? [{ text: 'Approve', decision: 'approve', binding: token() }] : undefined });
        const [card] = added(a.sent, before);
        const edits = a.edits().length;
        await adapter.closeButtons!(f.db(), a.connection, { thread, messageRef: d.providerMessageId! }, 'Approved by you');
        expect(added(a.edits, edits)).toEqual([{ wireId: card!.wireId, id: card!.id, text: 'Approved by you', buttons: 0 }]);
      });

      it.runIf(adapter.capabilities.buttons)('a card too long for one message: the send names the message that carries the buttons, and closing it closes those', async () => {
        const person = a.newPerson();
        const thread = directOf(person);
        const before = a.sent().length;
        const long = Array.from({ length: 300 }, (_, i) => `Line ${i} of a long approval card.`).join('\n');
        const d = await send({ kind: 'notice', thread, text: long, buttons: [{ text: 'Approve', decision: 'approve', binding: token() }] });
        expect(SENT).toContain(d.state);
        const withButtons = added(a.sent, before).filter((m) => m.buttons.length > 0);
        expect(withButtons).toHaveLength(1);
        const edits = a.edits().length;
        await adapter.closeButtons!(f.db(), a.connection, { thread, messageRef: d.providerMessageId! }, 'Approved by you');
        expect(added(a.edits, edits)).toMatchObject([{ wireId: withButtons[0]!.wireId, id: withButtons[0]!.id, buttons: 0 }]);
      });

      it('a decided card keeps the words the core gives it, the outcome’s line last, and loses its buttons', async () => {
        const person = a.newPerson();
        const thread = directOf(person);
        const before = a.sent().length;
        const words = 'Approval needed: Dinner\n\n1. email on email to bob@partner.example\nFriday at 8?';
        const d = await send({ kind: 'notice', thread, text: `${words}\n\nOr decide in the app`, buttons: adapter.capabilities.buttons ? [{ text: 'Approve', decision: 'approve', binding: token() }] : undefined });
        const [card] = added(a.sent, before);
        const edits = a.edits().length;
        await adapter.closeButtons!(f.db(), a.connection, { thread, messageRef: d.providerMessageId! }, 'Approved by you', words);
        const [edit] = added(a.edits, edits);
        expect(edit).toMatchObject({ wireId: card!.wireId, id: card!.id, buttons: 0 });
        expect(edit!.text).toContain('Friday at 8?');
        expect(edit!.text).not.toContain('Or decide in the app');
        expect(edit!.text.trimEnd().endsWith('Approved by you')).toBe(true);
      });
    });
  });
}
