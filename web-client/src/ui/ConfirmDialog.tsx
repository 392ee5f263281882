// The second step before a change that cannot be undone, on Radix UI's AlertDialog: what will
// happen, the action, and a way back — which has the focus when it opens, so a stray Enter keeps
// things as they are; Esc also keeps them. Focus goes back to the button that asked, or, when
// the change took that button away, where `onDone` puts it.
import { useState, type ReactElement } from "react";
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { errorText } from "../lib/api";

export function ConfirmDialog({
  trigger,
  title,
  description,
  action,
  onConfirm,
}: {
  /** The button that opens it (e.g. "Delete"). */
  trigger: ReactElement;
  /** The question, also the dialog's name ("Delete this conversation?"). */
  title: string;
  /** What happens, in a sentence or two. */
  description: string;
  /** The button that acts ("Delete conversation"). */
  action: string;
  /** Does the change; a rejection is shown in the dialog, which stays open. */
  onConfirm: () => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const act = async () => {
    setBusy(true);
    setError("");
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (o) setError("");
      }}
    >
      <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>
      <AlertDialog.Portal>
        {/* A plain backdrop: see Dialog.tsx. */}
        <div className="dialog-overlay" aria-hidden="true" />
        <AlertDialog.Content className="dialog dialog-alert">
          <AlertDialog.Title className="dialog-title">{title}</AlertDialog.Title>
          <AlertDialog.Description className="dialog-description">{description}</AlertDialog.Description>
          {error && <p className="error" role="alert">{error}</p>}
          <div className="dialog-actions">
            <AlertDialog.Cancel disabled={busy}>Keep it</AlertDialog.Cancel>
            {/* Not AlertDialog.Action: that closes at once, and the dialog waits for the change. */}
            <button type="button" className="danger" disabled={busy} onClick={() => void act()}>
              {action}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
