'use client';
import * as D from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import ui from './ui.module.css';

/**
 * A modal dialog (Radix Dialog: focus trapped inside and returned to the trigger, Escape closes,
 * the page behind is inert to screen readers). `trigger` is the button that opens it.
 */
export function Dialog({ trigger, title, description, children, open, onOpenChange }: { trigger?: ReactNode; title: string; description?: string; children: ReactNode; open?: boolean; onOpenChange?: (open: boolean) => void }) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      {trigger && <D.Trigger asChild>{trigger}</D.Trigger>}
      <D.Portal>
        <D.Overlay className={ui.overlay} />
        <D.Content className={ui.dialog}>
          <D.Title className={ui.dialogTitle}>{title}</D.Title>
          {description ? <D.Description className={ui.muted}>{description}</D.Description> : <D.Description className="sr-only">{title}</D.Description>}
          {children}
          <D.Close className={ui.dialogClose} aria-label="Close">
            ×
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

export const DialogClose = D.Close;
