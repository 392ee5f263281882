// A menu of actions behind one button, on Radix UI's DropdownMenu: arrow keys move between its
// items, Enter picks one, Esc or a click elsewhere closes it and gives the focus back to its
// button. Not modal: a modal menu locks the page's scroll with an injected <style> element, which
// a Content-Security-Policy without inline styles refuses.
import type { ReactNode } from "react";
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";

export function Menu({ label, disabled, children }: { label: string; disabled?: boolean; children: ReactNode }) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger className="menu-trigger" disabled={disabled}>
        {label} <span aria-hidden="true">▾</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu" align="end" sideOffset={4} collisionPadding={8}>
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export function MenuItem({ onSelect, disabled, hint, children }: { onSelect: () => void; disabled?: boolean; hint?: string; children: ReactNode }) {
  return (
    <DropdownMenu.Item className="menu-item" disabled={disabled} onSelect={onSelect}>
      <span>{children}</span>
      {hint && <span className="menu-hint">{hint}</span>}
    </DropdownMenu.Item>
  );
}
