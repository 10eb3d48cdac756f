'use client';
import type { ReactNode } from 'react';
import { Button, type ButtonVariant } from '@/app/_ui/button';
import { Dialog, DialogClose } from '@/app/_ui/dialog';

/** A button that asks first: the dialog says what happens, the confirming button does it. */
export function Confirm({
  label,
  srLabel,
  title,
  description,
  confirm,
  danger = true,
  variant,
  disabled,
  onConfirm,
  children,
}: {
  label: ReactNode;
  srLabel?: string;
  title: string;
  description: string;
  confirm: string;
  danger?: boolean;
  variant?: ButtonVariant;
  disabled?: boolean;
  onConfirm: () => void;
  children?: ReactNode;
}) {
  return (
    <Dialog
      title={title}
      description={description}
      trigger={
        <Button variant={variant ?? (danger ? 'danger-ghost' : 'secondary')} size="sm" disabled={disabled}>
          {label}
          {srLabel && <span className="sr-only"> {srLabel}</span>}
        </Button>
      }
    >
      {children}
      <div className="flex flex-wrap gap-2">
        <DialogClose asChild>
          <Button variant={danger ? 'danger' : 'primary'} onClick={onConfirm}>
            {confirm}
          </Button>
        </DialogClose>
        <DialogClose asChild>
          <Button variant="secondary">Cancel</Button>
        </DialogClose>
      </div>
    </Dialog>
  );
}
