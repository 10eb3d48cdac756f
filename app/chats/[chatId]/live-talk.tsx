'use client';
import { Mic, PhoneOff } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { Button } from '@/app/_ui/button';

/*
 * Live voice (issue 48): "Talk" opens a conversation with the assistant in both directions at
 * once, over the kernel's WebSocket for this chat (server/chats/live-voice*.ts), bridged to the
 * deployment's realtime speech model. The microphone is captured at the AudioContext's own rate
 * and resampled here to 24 kHz (a context at another rate than the microphone's is refused by some
 * browsers), sent as 16-bit PCM frames of about 21 ms; the assistant's audio comes back in the
 * same format and is scheduled back to back on the AudioContext (buffers at 24 kHz, which the
 * context resamples as it plays). When the person speaks over the
 * assistant the server says `clear`: everything scheduled stops at once. A `mark` is sent back
 * when playback reaches it (so the server knows what was heard). Captions of both sides show as
 * they come; the status is announced. "End" (or the assistant saying goodbye) ends it, and the
 * chat then shows what was said as messages.
 *
 * Capture uses a ScriptProcessorNode rather than an AudioWorklet: the pages' CSP
 * ('strict-dynamic', scripts only with the response's nonce) lets no worklet module load, and a
 * 1024-sample buffer at 48 kHz is about what a worklet would give us anyway.
 */

type Phase = 'idle' | 'connecting' | 'live' | 'ending';
type Caption = { who: 'person' | 'assistant'; text: string };
type Incoming = { type: 'ready' } | { type: 'clear' } | { type: 'mark'; name: string } | { type: 'caption'; who: Caption['who']; text: string } | { type: 'ended'; reason: string };

const STATUS: Record<Phase, string> = {
  idle: '',
  connecting: 'Connecting…',
  live: 'Live: talk whenever you like, and interrupt any time.',
  ending: 'Ending…',
};

const FRAME = 1024;

/** Float samples (-1…1) as 16-bit little-endian PCM. */
function pcm16(samples: Float32Array): ArrayBuffer {
  const out = new DataView(new ArrayBuffer(samples.length * 2));
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    out.setInt16(i * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true);
  }
  return out.buffer;
}

/**
 * A streaming resampler from the context's rate to `to` (linear interpolation over a two-sample
 * average, enough for speech going to a speech model): each call takes one buffer and carries the
 * fractional position and last sample over to the next.
 */
function resampler(from: number, to: number) {
  const step = from / to;
  let pos = 0;
  let last = 0;
  return (input: Float32Array): Float32Array => {
    const at = (i: number) => (i < 0 ? last : (input[Math.min(i, input.length - 1)] ?? 0));
    const count = Math.max(0, Math.floor((input.length - pos) / step));
    const out = new Float32Array(count);
    for (let k = 0; k < count; k++) {
      const x = pos + k * step;
      const i = Math.floor(x);
      const f = x - i;
      // Averaging with the sample before keeps most of what would fold back above the new Nyquist out.
      const a = (at(i) + at(i - 1)) / 2;
      const b = (at(i + 1) + at(i)) / 2;
      out[k] = a + (b - a) * f;
    }
    pos = pos + count * step - input.length;
    last = input[input.length - 1] ?? 0;
    return out;
  };
}

export function LiveTalk({
  chatId,
  assistantName,
  disabled,
  onActive,
  onEnded,
  onProblem,
}: {
  chatId: string;
  assistantName: string;
  disabled: boolean;
  /** The conversation started or ended (the page hides hold to talk meanwhile). */
  onActive: (active: boolean) => void;
  /** The conversation ended: its words are the chat's messages now. */
  onEnded: () => void;
  onProblem: (message: string) => void;
}) {
  const [phase, setPhase] = useState<Phase>('idle');
  const [captions, setCaptions] = useState<Caption[]>([]);
  const [note, setNote] = useState('');
  const [counts, setCounts] = useState({ scheduled: 0, played: 0, cleared: 0 });
  const live = useRef<{
    ws: WebSocket;
    ctx: AudioContext;
    stream: MediaStream;
    nodes: AudioNode[];
    playing: Set<AudioBufferSourceNode>;
    /** Stopped by a clear before their end: not counted as played. */
    cut: WeakSet<AudioBufferSourceNode>;
    playhead: number;
    /** Bumped by each clear: a mark waiting for playback from before it is never sent. */
    generation: number;
    /** The socket's sample rate (24 kHz). */
    rate: number;
  } | null>(null);

  const cleanup = () => {
    const l = live.current;
    live.current = null;
    if (!l) return;
    for (const n of l.nodes) n.disconnect();
    for (const s of l.playing) {
      l.cut.add(s);
      s.stop();
    }
    l.stream.getTracks().forEach((t) => t.stop());
    void l.ctx.close();
  };
  useEffect(() => cleanup, []);

  const play = (data: ArrayBuffer) => {
    const l = live.current;
    if (!l) return;
    const view = new DataView(data);
    const samples = Math.floor(data.byteLength / 2);
    if (!samples) return;
    const buffer = l.ctx.createBuffer(1, samples, l.rate);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < samples; i++) channel[i] = view.getInt16(i * 2, true) / 0x8000;
    const source = l.ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(l.ctx.destination);
    const at = Math.max(l.playhead, l.ctx.currentTime + 0.03);
    source.start(at);
    l.playhead = at + buffer.duration;
    l.playing.add(source);
    source.onended = () => {
      l.playing.delete(source);
      if (!l.cut.has(source)) setCounts((c) => ({ ...c, played: c.played + 1 }));
    };
    setCounts((c) => ({ ...c, scheduled: c.scheduled + 1 }));
  };

  const clear = () => {
    const l = live.current;
    if (!l) return;
    l.generation++;
    for (const s of l.playing) {
      l.cut.add(s);
      s.stop();
    }
    l.playing.clear();
    l.playhead = l.ctx.currentTime;
    setCounts((c) => ({ ...c, cleared: c.cleared + 1 }));
  };

  /** Sends the mark back once what was scheduled before it has played (unless a clear came first). */
  const markWhenPlayed = (name: string) => {
    const l = live.current;
    if (!l) return;
    const generation = l.generation;
    const wait = Math.max(0, (l.playhead - l.ctx.currentTime) * 1000);
    setTimeout(() => {
      if (live.current === l && l.generation === generation && l.ws.readyState === WebSocket.OPEN) l.ws.send(JSON.stringify({ type: 'mark', name }));
    }, wait);
  };

  const capture = () => {
    const l = live.current;
    if (!l) return;
    const source = l.ctx.createMediaStreamSource(l.stream);
    const processor = l.ctx.createScriptProcessor(FRAME, 1, 1);
    const resample = resampler(l.ctx.sampleRate, l.rate);
    processor.onaudioprocess = (e) => {
      const frame = resample(e.inputBuffer.getChannelData(0));
      if (frame.length && l.ws.readyState === WebSocket.OPEN) l.ws.send(pcm16(frame));
    };
    source.connect(processor);
    // A processor runs only while connected to the output; it writes nothing there (silence).
    processor.connect(l.ctx.destination);
    l.nodes.push(source, processor);
  };

  const start = async () => {
    if (phase !== 'idle' || disabled) return;
    setPhase('connecting');
    setCaptions([]);
    setNote('');
    try {
      const offer = await trpc.voice.live.mutate({ chatId });
      if (!offer.available) {
        setPhase('idle');
        return onProblem(offer.reason);
      }
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
      const ctx = new AudioContext();
      await ctx.resume();
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      const ws = new WebSocket(`${scheme}://${window.location.host}${offer.path}?token=${encodeURIComponent(offer.token)}`);
      ws.binaryType = 'arraybuffer';
      const l = { ws, ctx, stream, nodes: [] as AudioNode[], playing: new Set<AudioBufferSourceNode>(), cut: new WeakSet<AudioBufferSourceNode>(), playhead: 0, generation: 0, rate: offer.sampleRate };
      live.current = l;
      onActive(true);
      let endedReason = '';
      ws.onmessage = (ev) => {
        if (live.current !== l) return;
        if (ev.data instanceof ArrayBuffer) return play(ev.data);
        const m = JSON.parse(String(ev.data)) as Incoming;
        if (m.type === 'ready') {
          setPhase('live');
          capture();
        } else if (m.type === 'clear') clear();
        else if (m.type === 'mark') markWhenPlayed(m.name);
        else if (m.type === 'caption') setCaptions((c) => [...c, { who: m.who, text: m.text }]);
        else if (m.type === 'ended') endedReason = m.reason;
      };
      ws.onclose = (ev) => {
        if (live.current !== l) return;
        cleanup();
        setPhase('idle');
        onActive(false);
        if (ev.code === 1000) setNote(`The conversation ended${endedReason ? `: ${endedReason}` : ''}.`);
        else onProblem(`The conversation was cut off: ${endedReason || ev.reason || 'the connection closed'}. Hold to talk still works.`);
        onEnded();
      };
    } catch (e) {
      cleanup();
      setPhase('idle');
      onActive(false);
      onProblem(e instanceof DOMException ? `The microphone could not be opened: ${e.message}` : describeError(e).message);
    }
  };

  const end = () => {
    const l = live.current;
    if (!l) return;
    setPhase('ending');
    if (l.ws.readyState === WebSocket.OPEN) l.ws.send(JSON.stringify({ type: 'end' }));
    // The server closes it; if it does not, the page does.
    setTimeout(() => l.ws.readyState !== WebSocket.CLOSED && l.ws.close(1000), 2_000);
  };

  const active = phase !== 'idle';
  return (
    <div className="flex w-full flex-col gap-2" data-testid="live-talk" data-phase={phase} data-scheduled={counts.scheduled} data-played={counts.played} data-cleared={counts.cleared}>
      <div className="flex flex-wrap items-center gap-2">
        {active ? (
          <Button variant="danger" onClick={end} disabled={phase === 'ending'}>
            <PhoneOff aria-hidden="true" />
            End conversation
          </Button>
        ) : (
          <Button variant="secondary" onClick={() => void start()} disabled={disabled} aria-describedby="live-talk-status">
            <Mic aria-hidden="true" />
            Talk with {assistantName}
          </Button>
        )}
        <span id="live-talk-status" className="text-sm text-muted" role="status" aria-live="polite" data-testid="live-talk-status">
          {STATUS[phase] || note}
        </span>
      </div>
      {captions.length > 0 && (
        <ol aria-label="Live captions" className="flex max-h-40 flex-col gap-1 overflow-y-auto rounded-md border border-border p-2 text-sm" data-testid="live-captions">
          {captions.map((c, i) => (
            <li key={i} data-who={c.who}>
              <span className="font-medium">{c.who === 'person' ? 'You' : assistantName}:</span> {c.text}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
