// The assistant on narrow screens: a drawer over the page (a modal dialog, Radix UI), opened by
// the floating "Ask the assistant" button or by a run that needs the person (a confirmation, a
// question back). Focus moves into it (to the message box) and back to the button when it
// closes; Esc closes it — unless Esc belongs to something inside (stopping the answer being
// written from the message box, cancelling an edit). Runs go on while it is closed: their state
// is the conversation's, not the drawer's.
import * as Dialog from "@radix-ui/react-dialog";
import { Tip } from "../ui/Tooltip";
import { AssistantPanel } from "./AssistantPanel";
import { useConversation } from "./ConversationContext";
import { ownsEscape } from "./escape";

export function AssistantDrawer({
  open,
  onOpenChange,
  onCloseAutoFocus,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The shell prevents it when a navigation closed the drawer: the new page takes the focus. */
  onCloseAutoFocus: (e: Event) => void;
}) {
  const { busy, stop } = useConversation();
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger className="open-assistant">Ask the assistant</Dialog.Trigger>
      <Dialog.Portal>
        {/* A plain backdrop: see ui/Dialog.tsx. */}
        <div className="dialog-overlay" aria-hidden="true" />
        {/* Named by the panel's heading: a Dialog.Title there would belong to the conversations
            list's dialog, the nearer one. */}
        <Dialog.Content
          className="assistant drawer"
          aria-labelledby="assistant-title"
          aria-describedby={undefined}
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            document.getElementById("ask")?.focus();
          }}
          onCloseAutoFocus={onCloseAutoFocus}
          onEscapeKeyDown={(e) => {
            const target = e.target instanceof HTMLElement ? e.target : null;
            if (busy && target?.id === "ask") {
              e.preventDefault();
              stop();
            } else if (ownsEscape(target)) e.preventDefault();
          }}
        >
          <AssistantPanel
            heading={<h2 id="assistant-title">Assistant</h2>}
            close={
              <Tip text="Close the assistant">
                <button type="button" className="icon-button close-assistant" aria-label="Close the assistant" onClick={() => onOpenChange(false)}>
                  ×
                </button>
              </Tip>
            }
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
