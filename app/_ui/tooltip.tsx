'use client';
import * as T from '@radix-ui/react-tooltip';
import type { ReactNode } from 'react';

/** A hint on hover and focus for an icon button; its accessible name must still come from the button itself. */
export function Tooltip({ content, children, side = 'top' }: { content: ReactNode; children: ReactNode; side?: 'top' | 'bottom' | 'left' | 'right' }) {
  return (
    <T.Provider delayDuration={400}>
      <T.Root>
        <T.Trigger asChild>{children}</T.Trigger>
        <T.Portal>
          <T.Content side={side} sideOffset={6} className="z-[70] rounded-md bg-fg px-2 py-1 text-xs text-bg shadow-pop">
            {content}
          </T.Content>
        </T.Portal>
      </T.Root>
    </T.Provider>
  );
}
