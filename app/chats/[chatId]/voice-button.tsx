'use client';
import { useRef, useState } from 'react';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import { buttonClass } from '@/app/_ui/button';

/*
 * Live voice (issue 35): hold the button (pointer, or Space/Enter held on the keyboard) to record
 * from the microphone; on release the recording is transcribed by the deployment's audio API and
 * handed to the chat as the next message (the same durable turn as typed text). The reply is
 * spoken by `speakReply` once it has arrived. Each state is announced.
 */

export type VoiceState = 'idle' | 'starting' | 'listening' | 'transcribing' | 'thinking' | 'speaking';

const LABEL: Record<VoiceState, string> = {
  idle: 'Hold to talk',
  starting: 'Opening the microphone…',
  listening: 'Listening… release to send',
  transcribing: 'Transcribing…',
  thinking: 'Waiting for the reply…',
  speaking: 'Speaking the reply…',
};

async function base64Of(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function recorderType(): string | undefined {
  for (const t of ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4']) if (MediaRecorder.isTypeSupported(t)) return t;
  return undefined;
}

export function VoiceButton({
  chatId,
  disabled,
  state,
  setState,
  onText,
  onProblem,
}: {
  chatId: string;
  disabled: boolean;
  state: VoiceState;
  setState: (s: VoiceState) => void;
  onText: (text: string) => Promise<void>;
  onProblem: (message: string) => void;
}) {
  const recording = useRef<{ recorder: MediaRecorder; stream: MediaStream; chunks: Blob[]; stopAsked: boolean } | null>(null);
  const opening = useRef<Promise<void> | null>(null);
  const [seconds, setSeconds] = useState(0);
  const tick = useRef<ReturnType<typeof setInterval> | null>(null);

  const start = () => {
    if (disabled || state !== 'idle' || opening.current) return;
    setState('starting');
    opening.current = (async () => {
      try {
        const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
        const type = recorderType();
        const recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
        const rec = { recorder, stream, chunks: [] as Blob[], stopAsked: false };
        recorder.ondataavailable = (e) => e.data.size && rec.chunks.push(e.data);
        recorder.onstop = () => void finish(rec);
        recording.current = rec;
        recorder.start(250);
        setSeconds(0);
        tick.current = setInterval(() => setSeconds((n) => n + 1), 1_000);
        setState('listening');
      } catch (e) {
        setState('idle');
        onProblem(`The microphone could not be opened: ${(e as Error).message}`);
      } finally {
        opening.current = null;
      }
    })();
  };

  const stop = async () => {
    if (opening.current) await opening.current;
    const rec = recording.current;
    if (!rec || rec.stopAsked) return;
    rec.stopAsked = true;
    if (tick.current) clearInterval(tick.current);
    rec.recorder.stop();
  };

  const finish = async (rec: { recorder: MediaRecorder; stream: MediaStream; chunks: Blob[] }) => {
    recording.current = null;
    rec.stream.getTracks().forEach((t) => t.stop());
    const blob = new Blob(rec.chunks, { type: rec.recorder.mimeType || 'audio/webm' });
    if (!blob.size) {
      setState('idle');
      return onProblem('Nothing was recorded: hold the button while you speak.');
    }
    setState('transcribing');
    try {
      const { text } = await trpc.voice.transcribe.mutate({ chatId, audio: await base64Of(blob), mimeType: blob.type || 'audio/webm' });
      if (!text.trim()) {
        setState('idle');
        return onProblem('I did not catch anything: try again, a little closer to the microphone.');
      }
      setState('thinking');
      await onText(text.trim());
    } catch (e) {
      setState('idle');
      onProblem(describeError(e).message);
    }
  };

  const busy = state !== 'idle' && state !== 'listening' && state !== 'starting';
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        className={buttonClass(state === 'listening' ? 'danger' : 'secondary', 'md', 'touch-none select-none')}
        aria-pressed={state === 'listening'}
        aria-describedby="voice-status"
        disabled={disabled || busy}
        onPointerDown={(e) => {
          e.currentTarget.setPointerCapture?.(e.pointerId);
          start();
        }}
        onPointerUp={() => void stop()}
        onPointerCancel={() => void stop()}
        onKeyDown={(e) => {
          if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) {
            e.preventDefault();
            start();
          }
        }}
        onKeyUp={(e) => {
          if (e.key === ' ' || e.key === 'Enter') {
            e.preventDefault();
            void stop();
          }
        }}
        data-testid="voice-button"
      >
        {state === 'listening' ? `Release to send (${seconds} s)` : 'Hold to talk'}
      </button>
      <span id="voice-status" className="text-sm text-muted" role="status" aria-live="polite" data-testid="voice-status" data-state={state}>
        {LABEL[state]}
      </span>
    </div>
  );
}
