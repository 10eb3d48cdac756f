import { Check, ChevronDown } from 'lucide-react';
import { forwardRef, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { cn } from './cn';

/*
 * Form controls: native elements (the phone's own pickers, forms that post, autofill) drawn with
 * the tokens. Every one is at least 44 px tall on a touch screen and keeps the focus ring.
 */

const box =
  'w-full min-w-0 rounded-md border border-strong/60 bg-raised px-3 text-base text-fg placeholder:text-muted ' +
  'disabled:opacity-60 aria-[invalid=true]:border-danger';

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input({ className, ...rest }, ref) {
  return <input ref={ref} className={cn(box, 'min-h-11 sm:min-h-9', className)} {...rest} />;
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea({ className, ...rest }, ref) {
  return <textarea ref={ref} className={cn(box, 'min-h-24 py-2 leading-6', className)} {...rest} />;
});

/** A native select with the app's look: its own chevron, the platform's list when opened. */
export const Select = forwardRef<HTMLSelectElement, SelectHTMLAttributes<HTMLSelectElement>>(function Select({ className, children, ...rest }, ref) {
  return (
    <span className={cn('relative inline-flex w-full min-w-0', className)}>
      <select ref={ref} className={cn(box, 'min-h-11 appearance-none pr-9 sm:min-h-9')} {...rest}>
        {children}
      </select>
      <ChevronDown aria-hidden="true" className="pointer-events-none absolute top-1/2 right-2.5 size-4 -translate-y-1/2 text-muted" />
    </span>
  );
});

type CheckProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label?: React.ReactNode; hint?: React.ReactNode };

/**
 * A checkbox with its label beside it, the whole row a 44 px target. A native input (it posts with
 * its form and Playwright's check() works), drawn as a 20 px box with a check mark.
 */
export const Checkbox = forwardRef<HTMLInputElement, CheckProps>(function Checkbox({ label, hint, className, ...rest }, ref) {
  const control = (
    <span className="relative inline-flex size-5 shrink-0 items-center justify-center">
      <input
        ref={ref}
        type="checkbox"
        className="peer size-5 appearance-none rounded-sm border border-strong bg-raised checked:border-accent checked:bg-accent disabled:opacity-60"
        {...rest}
      />
      <Check aria-hidden="true" strokeWidth={3} className="pointer-events-none absolute size-3.5 text-accent-fg opacity-0 peer-checked:opacity-100" />
    </span>
  );
  // Without a visible label the control still gets a 44 px target: the label element around it (its name comes from aria-label).
  if (!label) return <label className={cn('inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center', className)}>{control}</label>;
  return (
    <label className={cn('flex min-h-11 cursor-pointer items-start gap-3 py-2.5 sm:min-h-9 sm:py-1.5', className)}>
      <span className="pt-0.5">{control}</span>
      <span className="min-w-0">
        <span className="block">{label}</span>
        {hint && <span className="block text-sm text-muted">{hint}</span>}
      </span>
    </label>
  );
});

/** An on/off switch (role="switch" on a native checkbox): a setting that applies as soon as it is flipped. */
export const Switch = forwardRef<HTMLInputElement, CheckProps>(function Switch({ label, hint, className, ...rest }, ref) {
  const control = (
    <span className="relative inline-flex h-6 w-10 shrink-0 items-center">
      <input
        ref={ref}
        type="checkbox"
        role="switch"
        className="peer h-6 w-10 appearance-none rounded-full border border-strong bg-surface transition-colors checked:border-accent checked:bg-accent disabled:opacity-60"
        {...rest}
      />
      <span aria-hidden="true" className="pointer-events-none absolute left-1 size-4 rounded-full bg-strong transition-transform peer-checked:translate-x-4 peer-checked:bg-accent-fg" />
    </span>
  );
  // Without a visible label the switch still gets a 44 px target: the label element around it (its name comes from aria-label).
  if (!label) return <label className={cn('inline-flex min-h-11 min-w-11 cursor-pointer items-center justify-center', className)}>{control}</label>;
  return (
    <label className={cn('flex min-h-11 cursor-pointer items-center justify-between gap-4 py-2 sm:min-h-9', className)}>
      <span className="min-w-0">
        <span className="block">{label}</span>
        {hint && <span className="block text-sm text-muted">{hint}</span>}
      </span>
      {control}
    </label>
  );
});
