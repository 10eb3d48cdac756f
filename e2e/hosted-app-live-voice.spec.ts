import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { signInByEmail } from './support/harness';
import { newPerson } from './support/hosted-app';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium';

/*
 * Issue 48, live voice on the chat page, in Chromium with a fake microphone that plays a WAV
 * written here (0.6 s of a tone, then 2.4 s of silence, looped by Chromium): "Talk" opens the
 * chat's live voice WebSocket, the page streams the microphone as 16-bit PCM at 24 kHz, and the
 * realtime stand-in (tests/helpers/realtime-fake.ts, started by global setup, scripted over HTTP
 * here) hears each tone with its own voice activity detection, answers with audio the page plays,
 * and is interrupted by the next tone: the page drops its playback at once (`clear`). The person
 * sees captions of both sides; after the conversation the chat shows them as messages.
 */

/** 16-bit mono PCM WAV at 48 kHz: `tone` ms of 300 Hz, then `quiet` ms of silence. */
function wav(tone: number, quiet: number): Buffer {
  const rate = 48_000;
  const samples = ((tone + quiet) * rate) / 1_000;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < (tone * rate) / 1_000; i++) data.writeInt16LE(Math.round(12_000 * Math.sin((2 * Math.PI * 300 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const microphone = path.join(mkdtempSync(path.join(os.tmpdir(), 'steward-e2e-mic-')), 'speech.wav');
writeFileSync(microphone, wav(600, 2_400));

test.use({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphone}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  },
});

const realtime = () => {
  const url = process.env.E2E_REALTIME_URL;
  if (!url) throw new Error('E2E_REALTIME_URL is not set: run through playwright (global setup starts the realtime stand-in)');
  return url;
};
const control = async (what: string, body: unknown) => expect((await fetch(`${realtime()}/control/${what}`, { method: 'POST', body: JSON.stringify(body) })).ok).toBe(true);
type Session = { inputFormat: string; outputFormat: string; appendedBytes: number; speechStarted: number; cancels: number; responses: Array<{ say: string | null; cancelled: boolean; audio: boolean }>; closed: boolean };
const sessions = async () => ((await (await fetch(`${realtime()}/control/sessions`)).json()) as { sessions: Session[] }).sessions;

test('talk: the microphone streams to the realtime model, its answer plays, speaking over it stops it, and captions show both sides', async ({ browser }) => {
  test.setTimeout(90_000);
  const person = await newPerson('live');
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}\n${e.stack}`));
  page.on('console', (m) => m.type() === 'error' && console.log(`console: ${m.text()}`));
  await signInByEmail(page, person.email);

  await page.goto('/chats');
  await page.getByLabel('Title (optional)').fill('Live talk');
  await page.getByRole('button', { name: 'Start a chat' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Live talk');

  const id = Date.now().toString(36);
  const asked = `What is on my list today, ${id}?`;
  const stop = `Stop there, ${id}.`;
  const short = `Fine, I will stop, ${id}.`;
  await control('reset', {});
  // A long answer (the next tone interrupts it), then a short one that plays out.
  await control('replies', { replies: [{ say: `Today you have three things, ${id}: the dentist, the report, and a call with Sam about the trip.`, audioMs: 4_000 }, { say: short, audioMs: 600 }] });
  await control('transcripts', { texts: [asked, stop] });
  const before = (await sessions()).length;

  // Hold to talk is still there beside it; the live conversation starts with the Talk button.
  await expect(page.getByRole('button', { name: 'Hold to talk' })).toBeVisible();
  await page.getByRole('button', { name: /^Talk with / }).click();
  const live = page.getByTestId('live-talk');
  await expect(live).toHaveAttribute('data-phase', 'live', { timeout: 15_000 });
  await expect(page.getByTestId('live-talk-status')).toHaveText('Live: talk whenever you like, and interrupt any time.');
  await expect(page.getByRole('button', { name: 'Hold to talk' })).toHaveCount(0);

  // Captions of both sides, as they come: the first question, the interruption, the short answer.
  const captions = page.getByRole('list', { name: 'Live captions' });
  await expect(captions.locator('li[data-who="person"]')).toHaveText([`You: ${asked}`, `You: ${stop}`], { timeout: 30_000 });
  await expect(captions.locator('li[data-who="assistant"]')).toContainText([short], { timeout: 15_000 });
  // The model's audio was played, and the interruption cleared the page's playback.
  await expect.poll(async () => Number(await live.getAttribute('data-played')), { timeout: 10_000 }).toBeGreaterThan(10);
  expect(Number(await live.getAttribute('data-cleared'))).toBeGreaterThanOrEqual(1);

  const session = (await sessions()).slice(before).at(-1)!;
  expect(session).toMatchObject({ inputFormat: 'pcm16', outputFormat: 'pcm16' });
  expect(session.appendedBytes).toBeGreaterThan(24_000);
  expect(session.cancels).toBeGreaterThanOrEqual(1);
  expect(session.responses[0]).toMatchObject({ cancelled: true, audio: true });
  expect(session.responses[1]).toMatchObject({ say: short, cancelled: false, audio: true });

  // The person ends it; the chat shows what was said as messages (spoken).
  await page.getByRole('button', { name: 'End conversation' }).click();
  await expect(live).toHaveAttribute('data-phase', 'idle', { timeout: 10_000 });
  await expect(page.getByTestId('live-talk-status')).toContainText('The conversation ended');
  await expect(page.getByRole('button', { name: 'Hold to talk' })).toBeVisible();
  const conversation = page.getByRole('list', { name: 'Conversation' });
  await expect(conversation.locator('[data-role="user"] [data-testid="message-content"]')).toHaveText([asked, stop]);
  await expect(conversation.locator('[data-role="assistant"] [data-testid="message-content"]')).toHaveText([short]);
  await expect(conversation.locator('[data-role="user"]').first()).toContainText('spoken');
  await page.reload();
  await expect(conversation.locator('[data-role="user"] [data-testid="message-content"]')).toHaveText([asked, stop]);
  await context.close();
});
