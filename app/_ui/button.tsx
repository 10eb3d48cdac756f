import { Slot } from '@radix-ui/react-slot';
import { forwardRef, type ButtonHTMLAttributes } from 'react';
import { cn } from './cn';

/*
 * The one button. Variants say what it does: `primary` (the main action of a place), `secondary`
 * (other actions), `ghost` (quiet, in rows and bars), `danger` (destroys or refuses: delete,
 * revoke, reject). Every size keeps a 44 px target on a phone (coarse pointer) and tightens on a
 * desktop. `asChild` styles a Link or <a> as a button.
 */
export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'danger-ghost';
export type ButtonSize = 'sm' | 'md' | 'icon';

const VARIANT: Record<ButtonVariant, string> = {
  primary: 'bg-accent text-accent-fg border-accent hover:brightness-110',
  secondary: 'bg-raised text-fg border-strong/60 hover:bg-surface',
  ghost: 'bg-transparent text-fg border-transparent hover:bg-surface',
  danger: 'bg-danger text-danger-fg border-danger hover:brightness-110',
  'danger-ghost': 'bg-transparent text-danger border-transparent hover:bg-danger-soft',
};
const SIZE: Record<ButtonSize, string> = {
  sm: 'min-h-11 sm:min-h-8 px-3 text-sm gap-1.5',
  md: 'min-h-11 sm:min-h-9 px-4 text-base gap-2',
  icon: 'min-h-11 min-w-11 sm:min-h-9 sm:min-w-9 p-0 justify-center',
};

export const buttonClass = (variant: ButtonVariant = 'primary', size: ButtonSize = 'md', className?: string) =>
  cn(
    'inline-flex shrink-0 items-center rounded-md border font-medium whitespace-nowrap no-underline transition-[filter,background-color] select-none',
    'disabled:opacity-55 disabled:pointer-events-none [&_svg]:size-4 [&_svg]:shrink-0',
    VARIANT[variant],
    SIZE[size],
    className,
  );

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize; asChild?: boolean };

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button({ variant, size, asChild, className, type, ...rest }, ref) {
  const Comp = asChild ? Slot : 'button';
  return <Comp ref={ref} className={buttonClass(variant, size, className)} {...(asChild ? {} : { type: type ?? 'button' })} {...rest} />;
});
