'use client';
import * as M from '@radix-ui/react-dropdown-menu';
import type { ReactNode } from 'react';
import { cn } from './cn';

/*
 * A dropdown menu on Radix (arrow keys, typeahead, Escape, focus returned to the trigger).
 * <Menu trigger={<Button …/>}> <MenuItem asChild><Link …/></MenuItem> <MenuSeparator/> </Menu>
 */
export function Menu({ trigger, children, align = 'end', label }: { trigger: ReactNode; children: ReactNode; align?: 'start' | 'end'; label?: string }) {
  return (
    <M.Root modal={false}>
      <M.Trigger asChild>{trigger}</M.Trigger>
      <M.Portal>
        <M.Content aria-label={label} align={align} sideOffset={6} className="z-50 min-w-56 rounded-lg border border-border bg-raised p-1 text-fg shadow-pop">
          {children}
        </M.Content>
      </M.Portal>
    </M.Root>
  );
}

export function MenuItem({ className, danger, ...rest }: M.DropdownMenuItemProps & { danger?: boolean }) {
  return (
    <M.Item
      className={cn(
        'flex min-h-11 cursor-pointer items-center gap-2 rounded-md px-3 text-fg no-underline outline-none select-none sm:min-h-9 data-[highlighted]:bg-accent-soft data-[highlighted]:text-accent [&_svg]:size-4',
        danger && 'text-danger data-[highlighted]:bg-danger-soft data-[highlighted]:text-danger',
        className,
      )}
      {...rest}
    />
  );
}

export const MenuLabel = ({ children }: { children: ReactNode }) => <M.Label className="px-3 pt-2 pb-1 text-xs font-semibold text-muted">{children}</M.Label>;
export const MenuSeparator = () => <M.Separator className="my-1 h-px bg-border" />;
