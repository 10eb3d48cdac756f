import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { logger } from '@/server/logger';
import type { ClientMessage, ServerMessage } from './protocol';

/*
 * One live view of the user's browser: CDP screencast frames out, the person's mouse and
 * keyboard in (Input.dispatchMouseEvent / dispatchKeyEvent / insertText), and the page's URL.
 * The view follows the page the person is on: a tab the site opens (a sign-in popup) becomes the
 * one shown. What the person types is sent to Chromium only; nothing here logs it.
 */

const MAX_WIDTH = 1280;
const MAX_HEIGHT = 900;

type Send = (m: ServerMessage) => void;

export class LiveBridge {
  private page: Page | null = null;
  private cdp: CDPSession | null = null;
  private stopped = false;
  private readonly onPage = (p: Page) => void this.show(p);
  private readonly onNavigated = (frame: { parentFrame(): unknown; url(): string }) => {
    if (!frame.parentFrame()) this.send({ type: 'url', url: frame.url() });
  };

  constructor(
    private readonly context: BrowserContext,
    private readonly send: Send,
  ) {}

  async start(page: Page): Promise<void> {
    this.context.on('page', this.onPage);
    await this.show(page);
  }

  /** Shows `page`: the screencast moves to it. */
  private async show(page: Page): Promise<void> {
    if (this.stopped || page === this.page) return;
    await this.detach();
    this.page = page;
    page.on('framenavigated', this.onNavigated);
    page.once('close', () => {
      if (this.page !== page || this.stopped) return;
      const next = this.context.pages().filter((p) => p !== page).at(-1);
      if (next) void this.show(next);
    });
    const cdp = await this.context.newCDPSession(page);
    this.cdp = cdp;
    cdp.on('Page.screencastFrame', (f) => {
      // Acknowledge at once: Chromium sends the next frame only after the previous one is acked.
      cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => {});
      if (this.cdp !== cdp) return;
      this.send({ type: 'frame', data: f.data, width: Math.round(f.metadata.deviceWidth ?? 0), height: Math.round(f.metadata.deviceHeight ?? 0) });
    });
    await page.bringToFront().catch(() => {});
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 70, maxWidth: MAX_WIDTH, maxHeight: MAX_HEIGHT, everyNthFrame: 1 });
    this.send({ type: 'url', url: page.url() });
  }

  private async detach(): Promise<void> {
    const { cdp, page } = this;
    this.cdp = null;
    this.page = null;
    page?.off('framenavigated', this.onNavigated);
    if (cdp) {
      await cdp.send('Page.stopScreencast').catch(() => {});
      await cdp.detach().catch(() => {});
    }
  }

  /** Forwards one input event to the page shown. */
  async input(m: Extract<ClientMessage, { type: 'mouse' | 'key' | 'text' }>): Promise<void> {
    const cdp = this.cdp;
    if (!cdp) return;
    try {
      if (m.type === 'mouse') {
        await cdp.send('Input.dispatchMouseEvent', {
          type: m.action,
          x: m.x,
          y: m.y,
          button: m.button,
          clickCount: m.clickCount,
          deltaX: m.deltaX,
          deltaY: m.deltaY,
          modifiers: m.modifiers,
        });
      } else if (m.type === 'text') {
        await cdp.send('Input.insertText', { text: m.text });
      } else {
        await cdp.send('Input.dispatchKeyEvent', keyEvent(m));
      }
    } catch (err) {
      // The page navigated or closed under the event: the next one goes to whatever is shown then.
      logger.debug({ err: (err as Error).message }, 'live view: an input event was not delivered');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.context.off('page', this.onPage);
    await this.detach();
  }
}

/** With Ctrl or Meta held (CDP modifier bits 2 and 4) a key is a shortcut and types nothing. */
const isShortcut = (modifiers: number) => (modifiers & 0b0110) !== 0;

function keyEvent(m: Extract<ClientMessage, { type: 'key' }>) {
  const base = { key: m.key, code: m.code, windowsVirtualKeyCode: m.keyCode, nativeVirtualKeyCode: m.keyCode, modifiers: m.modifiers };
  if (m.action === 'keyUp') return { type: 'keyUp' as const, ...base };
  const text = m.key === 'Enter' ? '\r' : m.key.length === 1 && !isShortcut(m.modifiers) ? m.key : undefined;
  return text ? { type: 'keyDown' as const, ...base, text, unmodifiedText: text } : { type: 'rawKeyDown' as const, ...base };
}
