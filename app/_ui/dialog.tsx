'use client';
import * as D from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from './cn';

/*
 * Modal surfaces on Radix Dialog: focus trapped inside and returned to the trigger, Escape closes,
 * the page behind inert to screen readers. `Dialog` is centred; `Sheet` slides in from the right on
 * a desktop (a side panel) and up from the bottom on a phone.
 */

type Props = { trigger?: ReactNode; title: ReactNode; description?: ReactNode; children: ReactNode; open?: boolean; onOpenChange?: (open: boolean) => void; className?: string };

const overlay = 'fixed inset-0 z-40 bg-black/45 motion-safe:animate-[fade-in_120ms_ease-out]';
const closeButton = 'absolute top-2 right-2 inline-flex size-11 items-center justify-center rounded-md text-muted hover:bg-surface hover:text-fg sm:size-9';

export function Dialog({ trigger, title, description, children, open, onOpenChange, className }: Props) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      {trigger && <D.Trigger asChild>{trigger}</D.Trigger>}
      <D.Portal>
        <D.Overlay className={overlay} />
        <D.Content
          className={cn(
            'fixed top-1/2 left-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[min(32rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 overflow-auto',
            'rounded-xl border border-border bg-raised p-5 text-fg shadow-sheet',
            className,
          )}
        >
          <D.Title className="pr-10 text-lg font-semibold">{title}</D.Title>
          {description ? <D.Description className="mt-1 text-sm text-muted">{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
          <div className="mt-4">{children}</div>
          <D.Close className={closeButton} aria-label="Close">
            <X aria-hidden="true" className="size-5" />
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

/** A side panel (≥ 640 px) or a bottom sheet (phone) for one item opened from a list. */
export function Sheet({ trigger, title, description, children, open, onOpenChange, className, footer }: Props & { footer?: ReactNode }) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      {trigger && <D.Trigger asChild>{trigger}</D.Trigger>}
      <D.Portal>
        <D.Overlay className={overlay} />
        <D.Content
          className={cn(
            'fixed z-50 flex flex-col bg-raised text-fg shadow-sheet',
            'inset-x-0 bottom-0 max-h-[92dvh] rounded-t-xl border-t border-border motion-safe:animate-[sheet-in-bottom_180ms_ease-out]',
            'sm:inset-y-0 sm:right-0 sm:left-auto sm:max-h-none sm:w-[min(36rem,100vw)] sm:rounded-none sm:border-t-0 sm:border-l sm:motion-safe:animate-[sheet-in-right_180ms_ease-out]',
            className,
          )}
        >
          <div className="border-b border-border px-4 pt-3 pb-3 pr-14 sm:px-5">
            <D.Title className="text-lg font-semibold">{title}</D.Title>
            {description ? <D.Description className="text-sm text-muted">{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto px-4 py-4 sm:px-5">{children}</div>
          {footer && <div className="border-t border-border px-4 py-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-5">{footer}</div>}
          <D.Close className={closeButton} aria-label="Close">
            <X aria-hidden="true" className="size-5" />
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

export const DialogClose = D.Close;
