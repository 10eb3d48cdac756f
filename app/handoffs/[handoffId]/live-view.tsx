'use client';

import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type WheelEvent, type ClipboardEvent } from 'react';

/*
 * The live view: frames of the user's browser, drawn as they arrive, and the person's mouse and
 * keyboard sent back over the same WebSocket. What is typed here goes to the browser only.
 */

type Hello = { id: string; prompt: string; actionType: string; targetUrl: string | null; taskId: string | null; expiresAt: string };
type Incoming =
  | { type: 'hello'; handoff: Hello }
  | { type: 'status'; browser: 'starting' | 'running' | 'unavailable' }
  | { type: 'frame'; data: string; width: number; height: number }
  | { type: 'url'; url: string }
  | { type: 'closed'; status: string; closeReason: string | null }
  | { type: 'error'; error: string };

// One socket per token for the page's life: a link opens once, and React's development re-mount must not spend it twice.
const sockets = new Map<string, WebSocket>();

const modifiers = (e: { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }) =>
  (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
const BUTTONS = ['left', 'middle', 'right'] as const;

const CLOSED_TEXT: Record<string, string> = {
  completed: 'Done: your assistant has the browser again and carries on.',
  deferred: 'Deferred: your assistant will ask again later.',
  declined: 'Declined: your assistant will find another way.',
  expired: 'This handoff expired.',
};

export function LiveView({ handoffId, token }: { handoffId: string; token: string }) {
  const [hello, setHello] = useState<Hello | null>(null);
  const [browser, setBrowser] = useState<string>('connecting');
  const [url, setUrl] = useState('');
  const [frame, setFrame] = useState<{ src: string; width: number; height: number } | null>(null);
  const [closed, setClosed] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deferring, setDeferring] = useState(false);
  const [message, setMessage] = useState('');
  const [minutes, setMinutes] = useState('');
  const ws = useRef<WebSocket | null>(null);
  const screen = useRef<HTMLImageElement | null>(null);
  const lastMove = useRef(0);

  useEffect(() => {
    // The token leaves the address bar (and so the history) at once.
    window.history.replaceState(null, '', window.location.pathname);
    let socket = sockets.get(token);
    if (!socket) {
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      socket = new WebSocket(`${scheme}://${window.location.host}/api/workspace/live/${encodeURIComponent(handoffId)}?token=${encodeURIComponent(token)}`);
      sockets.set(token, socket);
    }
    ws.current = socket;
    socket.onmessage = (ev) => {
      const m = JSON.parse(String(ev.data)) as Incoming;
      if (m.type === 'hello') setHello(m.handoff);
      else if (m.type === 'status') setBrowser(m.browser);
      else if (m.type === 'frame') setFrame({ src: `data:image/jpeg;base64,${m.data}`, width: m.width, height: m.height });
      else if (m.type === 'url') setUrl(m.url);
      else if (m.type === 'closed') setClosed(CLOSED_TEXT[m.closeReason ?? m.status] ?? 'This handoff is closed.');
      else if (m.type === 'error') setError(m.error);
    };
    socket.onclose = (ev) => {
      setBrowser('disconnected');
      if (ev.code === 4408) setError('The session ended after a while without activity. Ask for a new link to continue.');
    };
    socket.onerror = () => setError('This link could not open your browser: it may have been used already or expired. Ask for a new link.');
  }, [handoffId, token]);

  const send = (m: unknown) => {
    if (ws.current?.readyState === WebSocket.OPEN) ws.current.send(JSON.stringify(m));
  };

  /** Page coordinates of a pointer event on the frame. */
  const at = (e: { clientX: number; clientY: number }) => {
    const img = screen.current;
    if (!img || !frame) return null;
    const r = img.getBoundingClientRect();
    return { x: ((e.clientX - r.left) / r.width) * frame.width, y: ((e.clientY - r.top) / r.height) * frame.height };
  };
  const mouse = (action: string, e: MouseEvent<HTMLElement>, extra: Record<string, unknown> = {}) => {
    const p = at(e);
    if (p) send({ type: 'mouse', action, ...p, modifiers: modifiers(e), ...extra });
  };
  const onMove = (e: MouseEvent<HTMLElement>) => {
    const now = Date.now();
    if (now - lastMove.current < 30) return;
    lastMove.current = now;
    mouse('mouseMoved', e, { button: e.buttons & 1 ? 'left' : 'none' });
  };
  const onKey = (action: 'keyDown' | 'keyUp', e: KeyboardEvent<HTMLElement>) => {
    if (e.target !== e.currentTarget) return;
    // Paste goes through onPaste; every other key goes to the remote page only.
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return;
    e.preventDefault();
    send({ type: 'key', action, key: e.key, code: e.code, keyCode: e.keyCode, modifiers: modifiers(e) });
  };

  if (closed) {
    return (
      <section>
        <p role="status">{closed}</p>
        <p>You can close this page.</p>
      </section>
    );
  }
  return (
    <section>
      {hello?.prompt ? <p style={{ margin: '0 0 8px' }}>{hello.prompt}</p> : null}
      <div style={{ display: 'flex', gap: 8, alignItems: 'center', margin: '0 0 8px' }}>
        <label htmlFor="live-url" style={{ fontSize: 13 }}>
          Address
        </label>
        <input id="live-url" readOnly value={url} style={{ flex: 1, font: '13px monospace', padding: 4 }} />
        <span role="status" aria-label="Browser status" style={{ fontSize: 13 }}>
          {browser}
        </span>
      </div>
      {error ? (
        <p role="alert" style={{ color: '#a00' }}>
          {error}
        </p>
      ) : null}
      <div
        tabIndex={0}
        aria-label="Live browser: click to use it, type to send keys"
        onKeyDown={(e) => onKey('keyDown', e)}
        onKeyUp={(e) => onKey('keyUp', e)}
        onPaste={(e: ClipboardEvent<HTMLElement>) => {
          const text = e.clipboardData.getData('text');
          e.preventDefault();
          if (text) send({ type: 'text', text });
        }}
        style={{ outline: '2px solid #ccd', background: '#f4f4f7', minHeight: 200, cursor: 'default' }}
      >
        {frame ? (
          // eslint-disable-next-line @next/next/no-img-element
          <img
            ref={screen}
            src={frame.src}
            alt="Your browser"
            draggable={false}
            style={{ display: 'block', width: '100%', height: 'auto', userSelect: 'none' }}
            onMouseDown={(e) => {
              (e.currentTarget.parentElement as HTMLElement).focus();
              mouse('mousePressed', e, { button: BUTTONS[e.button] ?? 'left', clickCount: e.detail || 1 });
            }}
            onMouseUp={(e) => mouse('mouseReleased', e, { button: BUTTONS[e.button] ?? 'left', clickCount: e.detail || 1 })}
            onMouseMove={onMove}
            onWheel={(e: WheelEvent<HTMLElement>) => mouse('mouseWheel', e, { deltaX: e.deltaX, deltaY: e.deltaY })}
            onContextMenu={(e) => e.preventDefault()}
          />
        ) : (
          <p style={{ padding: 16 }}>{browser === 'unavailable' ? 'The browser is not available right now.' : 'Starting your browser…'}</p>
        )}
      </div>
      <div style={{ display: 'flex', gap: 8, marginTop: 12 }}>
        <button type="button" onClick={() => send({ type: 'complete' })}>
          Done
        </button>
        <button type="button" onClick={() => setDeferring((d) => !d)} aria-expanded={deferring}>
          Defer
        </button>
        <button type="button" onClick={() => send({ type: 'decline' })}>
          Decline
        </button>
      </div>
      {deferring ? (
        <form
          style={{ marginTop: 8, display: 'grid', gap: 6, maxWidth: 480 }}
          onSubmit={(e) => {
            e.preventDefault();
            const n = Number(minutes);
            send({ type: 'defer', message, ...(minutes && Number.isInteger(n) && n > 0 ? { deferMinutes: n } : {}) });
          }}
        >
          <label htmlFor="defer-message">Message for your assistant</label>
          <textarea id="defer-message" required maxLength={2000} value={message} onChange={(e) => setMessage(e.target.value)} />
          <label htmlFor="defer-minutes">Ask again in (minutes, optional, up to 20160)</label>
          <input id="defer-minutes" type="number" min={1} max={20160} value={minutes} onChange={(e) => setMinutes(e.target.value)} />
          <button type="submit">Send and defer</button>
        </form>
      ) : null}
    </section>
  );
}
