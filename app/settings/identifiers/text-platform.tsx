'use client';
import { useState } from 'react';
import { trpc } from '@/app/_lib/trpc-client';
import type { Identifier } from '@/app/_lib/types';
import type { textChannels } from '@/db/schema/channel-names';
import { Field } from '@/app/_ui/field';
import s from '@/app/_ui/hosted.module.css';
import { useSave } from '../use-save';

type Platform = (typeof textChannels)[number];

/**
 * How texts to a verified phone go (its `preferredTextPlatform`): SMS always, WhatsApp and iMessage
 * once the number is known to use them (a message came from it on that platform, or the provider
 * said so). Notices by text follow the choice; "as my notices say" clears it.
 */
export function TextPlatform({ identifier: i }: { identifier: Identifier }) {
  const [platform, setPlatform] = useState<Platform | ''>((i.preferredTextPlatform as Platform | null) ?? '');
  const { pending, save } = useSave();
  const options: ReadonlyArray<readonly [Platform | '', string]> = [
    ['', 'As my notice setting says'],
    ['sms', 'SMS'],
    ...(i.whatsAppCapable ? [['whatsapp', 'WhatsApp'] as const] : []),
    ...(i.iMessageCapable ? [['imessage', 'iMessage'] as const] : []),
  ];
  const id = `platform-${i.id}`;
  const hint = i.whatsAppCapable && i.iMessageCapable ? undefined : 'WhatsApp and iMessage show here once a message came from this number on them.';
  return (
    <form
      className={s.row}
      onSubmit={(e) => {
        e.preventDefault();
        const chosen = platform ? options.find(([v]) => v === platform)?.[1] : null;
        void save(
          () => trpc.identifiers.update.mutate({ identifierId: i.id, preferredTextPlatform: platform || null }),
          chosen ? `Texts to ${i.value} now go by ${chosen}.` : `Texts to ${i.value} follow your notice setting.`,
        );
      }}
    >
      <Field id={id} label={`Texts to ${i.value} go by`} hint={hint}>
        <select id={id} aria-describedby={hint ? `${id}-hint` : undefined} value={platform} onChange={(e) => setPlatform(e.target.value as Platform | '')}>
          {options.map(([v, l]) => (
            <option key={v || 'default'} value={v}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <button className={s.secondary} type="submit" disabled={pending}>
        Save<span className="sr-only"> how texts to {i.value} go</span>
      </button>
    </form>
  );
}
