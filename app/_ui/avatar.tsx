import { cn } from './cn';
import { hueOf } from './brand';

/** A round mark with initials, its colour from the name (the same name is always the same colour). */
export function Avatar({ name, size = 'md', className }: { name: string; size?: 'sm' | 'md' | 'lg'; className?: string }) {
  const initials =
    name
      .split(/[\s@._-]+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]!.toUpperCase())
      .join('') || '?';
  const sizes = { sm: 'size-6 text-xs', md: 'size-8 text-sm', lg: 'size-10 text-base' };
  return (
    <span
      aria-hidden="true"
      className={cn('inline-flex shrink-0 items-center justify-center rounded-full font-semibold text-white select-none', sizes[size], className)}
      style={{ background: `oklch(0.5 0.14 ${hueOf(name)})` }}
    >
      {initials}
    </span>
  );
}
