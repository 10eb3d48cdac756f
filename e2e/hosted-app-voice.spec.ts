import { expect, test } from '@playwright/test';
import { signInByEmail } from './support/harness';
import { newPerson } from './support/hosted-app';
import { voiceCheckReply } from './support/model-script';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium';

/*
 * Issue 35, live voice on the chat page, in Chromium with a fake microphone
 * (--use-fake-device-for-media-stream plays a tone; --use-fake-ui-for-media-stream grants it):
 * holding the voice button records, the recording goes to the deployment's audio API (the
 * loopback fake of /v1/audio/transcriptions answers a scripted transcript), the transcript is
 * the chat's next message and the same durable chat turn answers it, the reply text is shown and
 * spoken through /v1/audio/speech (a real WAV, played by the page).
 */

test.use({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
    ],
  },
});

const audioFake = () => {
  const url = process.env.E2E_AUDIO_URL;
  if (!url) throw new Error('E2E_AUDIO_URL is not set: run through playwright (global setup starts the audio fake)');
  return url;
};

test('hold to talk: the recording is transcribed, answered by the chat turn, and the reply is shown and spoken', async ({ browser }) => {
  test.setTimeout(90_000);
  const person = await newPerson('voice');
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}\n${e.stack}`));
  page.on('console', (m) => m.type() === 'error' && console.log(`console: ${m.text()}`));
  await signInByEmail(page, person.email);

  await page.goto('/chats');
  await page.getByLabel('Title (optional)').fill('Voice notes');
  await page.getByRole('button', { name: 'Start a chat' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Voice notes');

  const id = `v${Date.now().toString(36)}`;
  const transcript = `Voice check ${id}, what is next on my list?`;
  const before = ((await (await fetch(`${audioFake()}/control/requests`)).json()) as { requests: unknown[] }).requests.length;
  expect((await fetch(`${audioFake()}/control/transcripts`, { method: 'POST', body: JSON.stringify({ text: transcript }) })).ok).toBe(true);

  const button = page.getByRole('button', { name: 'Hold to talk' });
  const status = page.getByTestId('voice-status');
  await expect(status).toHaveText('Hold to talk');
  await button.hover();
  await page.mouse.down();
  await expect(status).toHaveAttribute('data-state', 'listening', { timeout: 10_000 });
  await expect(page.getByRole('button', { name: /Release to send/ })).toHaveAttribute('aria-pressed', 'true');
  // The fake microphone's tone, recorded for a moment.
  await page.waitForTimeout(1_500);
  await page.mouse.up();

  // The transcript is the chat's message (spoken: platform voice), and the turn's reply is shown.
  const conversation = page.getByRole('list', { name: 'Conversation' });
  const mine = conversation.locator('[data-role="user"]');
  await expect(mine).toHaveCount(1, { timeout: 20_000 });
  await expect(mine.first().getByTestId('message-content')).toHaveText(transcript);
  await expect(mine.first()).toContainText('spoken');
  const reply = conversation.locator('[data-role="assistant"]');
  await expect(reply).toHaveCount(1, { timeout: 30_000 });
  await expect(reply.first().getByTestId('message-content')).toHaveText(voiceCheckReply(id));

  // The reply was spoken: its audio fetched from the speech API and played to its end.
  const player = page.getByTestId('voice-reply');
  await expect(player).not.toHaveAttribute('data-played', '', { timeout: 20_000 });
  await expect(status).toHaveAttribute('data-state', 'idle');
  const played = await player.evaluate((a: HTMLAudioElement) => ({ ended: a.ended, duration: a.duration, src: a.currentSrc }));
  expect(played.ended).toBe(true);
  expect(played.duration).toBeGreaterThan(0.2);
  expect(played.src).toMatch(/^blob:/);
  await expect(page.getByRole('status').filter({ hasText: 'The reply was spoken.' })).toHaveCount(1);

  const { requests } = (await (await fetch(`${audioFake()}/control/requests`)).json()) as { requests: Array<Record<string, any>> };
  const fresh = requests.slice(before);
  expect(fresh.map((r) => r.kind)).toEqual(['transcription', 'speech']);
  expect(fresh[0]).toMatchObject({ model: 'fake-whisper', mimeType: expect.stringMatching(/^audio\/webm/) });
  expect(fresh[0]!.bytes).toBeGreaterThan(500);
  expect(fresh[1]).toMatchObject({ model: 'fake-tts', input: voiceCheckReply(id), voice: 'alloy', format: 'wav' });

  // After a reload the conversation is what was said and answered.
  await page.reload();
  await expect(conversation.locator('[data-role="user"] [data-testid="message-content"]')).toHaveText([transcript]);
  await expect(conversation.locator('[data-role="assistant"] [data-testid="message-content"]')).toHaveText([voiceCheckReply(id)]);
  await context.close();
});
