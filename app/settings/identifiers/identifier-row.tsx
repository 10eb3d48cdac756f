'use client';
import { useState } from 'react';
import { formatWhen } from '@/app/_lib/time';
import { usePrefs } from '@/app/_ui/time';
import { describeError, trpc } from '@/app/_lib/trpc-client';
import type { Identifier } from '@/app/_lib/types';
import { Badge } from '@/app/_ui/states';
import { useNotify } from '@/app/_ui/toast';
import s from '@/app/_ui/hosted.module.css';
import ui from '@/app/_ui/ui.module.css';
import { useSave } from '../use-save';
import { TextPlatform } from './text-platform';

/**
 * One email or phone: whether it is proven, the one-time-code flow (a 6-digit code sent to it,
 * typed back here), how texts to a verified phone go, make primary, remove.
 */
export function IdentifierRow({ identifier: i }: { identifier: Identifier }) {
  const notify = useNotify();
  const prefs = usePrefs();
  const { pending, save } = useSave();
  const [sentUntil, setSentUntil] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [sending, setSending] = useState(false);
  const label = i.value;
  const send = async () => {
    setSending(true);
    try {
      const { expiresAt } = await trpc.identifiers.sendCode.mutate({ identifierId: i.id });
      setSentUntil(expiresAt);
      notify('ok', `A code is on its way to ${label}. It works until ${formatWhen(expiresAt, prefs)}.`);
    } catch (e) {
      const { message, code: errorCode } = describeError(e);
      notify('error', errorCode === 'sms_not_configured' ? 'Phone numbers are verified by SMS, which this deployment does not offer yet.' : message);
    } finally {
      setSending(false);
    }
  };
  const codeId = `code-${i.id}`;
  return (
    <li className={ui.item}>
      <div className={ui.itemHead}>
        <p className={ui.itemTitle}>
          {i.type === 'phone' ? 'Phone' : 'Email'} <strong>{i.value}</strong>
          {i.label ? ` (${i.label})` : ''}
        </p>
        <span className={s.inline}>
          {i.primary && <Badge tone="accent">Primary</Badge>}
          <Badge tone={i.verified ? 'ok' : 'warn'}>{i.verified ? 'Verified' : 'Not verified'}</Badge>
        </span>
      </div>
      {!i.verified && (i.type === 'email' || i.type === 'phone') && (
        <div className={ui.actions}>
          <button className={s.secondary} type="button" disabled={sending} onClick={send}>
            {sentUntil ? 'Send a new code' : 'Send a verification code'}
            <span className="sr-only"> to {label}</span>
          </button>
          {sentUntil && (
            <form
              className={s.inline}
              onSubmit={(e) => {
                e.preventDefault();
                void save(() => trpc.identifiers.verify.mutate({ identifierId: i.id, code }), `${label} is verified.`);
              }}
            >
              <label htmlFor={codeId}>Code sent to {label}</label>
              <input id={codeId} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,7}" maxLength={7} size={8} value={code} onChange={(e) => setCode(e.target.value)} />
              <button className={s.button} type="submit" disabled={pending || code.replace(/\s/g, '').length !== 6}>
                Verify<span className="sr-only"> {label}</span>
              </button>
            </form>
          )}
        </div>
      )}
      {i.type === 'phone' && i.verified && <TextPlatform identifier={i} />}
      <div className={ui.actions}>
        {i.type === 'email' && i.verified && !i.primary && (
          <button className={s.secondary} type="button" disabled={pending} onClick={() => void save(() => trpc.identifiers.makePrimary.mutate({ identifierId: i.id }), `${label} is now your primary email.`)}>
            Make primary<span className="sr-only"> {label}</span>
          </button>
        )}
        {!i.primary && (
          <button className={s.secondary} type="button" disabled={pending} onClick={() => void save(() => trpc.identifiers.remove.mutate({ identifierId: i.id }), `${label} removed.`)}>
            Remove<span className="sr-only"> {label}</span>
          </button>
        )}
      </div>
    </li>
  );
}
