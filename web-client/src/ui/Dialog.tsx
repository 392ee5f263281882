// The app's dialogs, on Radix UI's Dialog (focus trapped inside and given back to what opened it,
// Esc and a click outside close it, the rest of the page hidden from screen readers meanwhile):
// a window over the page (`variant="window"`, e.g. a table expanded to the whole window) or a
// sheet from the right edge (`variant="sheet"`, e.g. a run's details). Each has a title (its
// accessible name) and a close button.
import type { ReactNode } from "react";
import * as RadixDialog from "@radix-ui/react-dialog";

export const DialogRoot = RadixDialog.Root;
export const DialogTrigger = RadixDialog.Trigger;
export const DialogClose = RadixDialog.Close;

export function DialogContent({
  title,
  closeLabel,
  variant,
  className,
  onOpenAutoFocus,
  onCloseAutoFocus,
  children,
}: {
  /** Shown as the heading; also the dialog's accessible name. */
  title: ReactNode;
  /** The close button's accessible name ("Close details"). */
  closeLabel: string;
  variant: "window" | "sheet";
  className?: string;
  onOpenAutoFocus?: (e: Event) => void;
  /** Prevent it to keep the focus where a navigation put it, not on the button that opened the dialog. */
  onCloseAutoFocus?: (e: Event) => void;
  children: ReactNode;
}) {
  return (
    <RadixDialog.Portal>
      {/* A plain backdrop, not Radix's Overlay: that one locks the page's scroll by injecting a
          <style> element, which a Content-Security-Policy without inline styles refuses; here
          the page never scrolls as a whole (only <main> does), so nothing needs locking. */}
      <div className="dialog-overlay" aria-hidden="true" />
      <RadixDialog.Content className={`dialog dialog-${variant} ${className ?? ""}`.trim()} aria-describedby={undefined} onOpenAutoFocus={onOpenAutoFocus} onCloseAutoFocus={onCloseAutoFocus}>
        <header className="dialog-header">
          <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
          {/* The first thing in the dialog, so it has the focus when the dialog opens: no
              tooltip here, which would open with it. */}
          <RadixDialog.Close className="icon-button" aria-label={closeLabel} title={closeLabel}>
            ×
          </RadixDialog.Close>
        </header>
        {children}
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}
