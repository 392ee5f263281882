// One conversation in the list: opens it, renames it in place (Enter saves, Esc cancels), or
// deletes it after a confirmation.
import { useState } from "react";
import { timestampDate, type Thread } from "@aware/client";
import { errorText } from "../lib/api";
import { whenText } from "../lib/format";
import { useDeleteThread, useRenameThread } from "../lib/queries/threads";
import { ConfirmDialog } from "../ui/ConfirmDialog";

export function ThreadRow({
  thread,
  current,
  onOpen,
  onDeleted,
}: {
  thread: Thread;
  current: boolean;
  onOpen: (threadId: string) => void;
  onDeleted: (threadId: string) => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState("");
  const rename = useRenameThread();
  const remove = useDeleteThread();
  const when = thread.lastActivityAt ? whenText(timestampDate(thread.lastActivityAt)) : "";
  return (
    <li className="thread" aria-current={current ? "true" : undefined} data-thread-id={thread.threadId}>
      {renaming ? (
        <form
          className="rename"
          data-own-escape
          onSubmit={(e) => {
            e.preventDefault();
            if (title.trim()) rename.mutate({ id: thread.threadId, title: title.trim() }, { onSuccess: () => setRenaming(false) });
          }}
          onKeyDown={(e) => e.key === "Escape" && setRenaming(false)}
        >
          <input aria-label="Conversation title" value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} autoFocus />
          <button type="submit" disabled={rename.isPending || !title.trim()}>Save</button>
          <button type="button" className="link" onClick={() => setRenaming(false)}>Cancel</button>
        </form>
      ) : (
        <div className="thread-row">
          <button type="button" className="open-thread" onClick={() => onOpen(thread.threadId)}>
            <span className="thread-title">{thread.title}</span>
            <span className="muted">{when}</span>
          </button>
          <button
            type="button"
            className="link"
            aria-label={`Rename “${thread.title}”`}
            onClick={() => {
              setTitle(thread.title);
              rename.reset();
              setRenaming(true);
            }}
          >
            Rename
          </button>
          <ConfirmDialog
            trigger={<button type="button" className="link" aria-label={`Delete “${thread.title}”`}>Delete</button>}
            title={`Delete “${thread.title}”?`}
            description="This deletes the conversation and everything its runs left. It cannot be undone."
            action="Delete conversation"
            onConfirm={async () => {
              await remove.mutateAsync(thread.threadId);
              onDeleted(thread.threadId);
            }}
          />
        </div>
      )}
      {rename.isError && <p className="error" role="alert">{errorText(rename.error)}</p>}
    </li>
  );
}
