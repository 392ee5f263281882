// The conversations panel of the assistant: the person's threads, newest activity first (title and
// last activity), to open one, rename it in place, delete it (after a second click that says what
// goes), or start a new conversation; a search box asks the server for the threads whose title or
// a question holds the words (⌘K or Ctrl+K opens the panel there). It slides over the assistant's
// log, on wide screens and in the phone drawer alike.
import { useEffect, useState } from "react";
import { timestampDate, type Thread } from "@aware/client";
import { aware, errorText } from "./api";
import { whenText } from "./format";

export function Conversations({
  threads,
  more,
  current,
  query,
  onSearch,
  onOpen,
  onNew,
  onMore,
  onChanged,
  onDeleted,
  onClose,
}: {
  /** null while the first page loads. */
  threads: Thread[] | null;
  /** Whether older conversations can be loaded. */
  more: boolean;
  current: string;
  /** The search the list shows ("" = every thread). */
  query: string;
  onSearch: (query: string) => void;
  onOpen: (threadId: string) => void;
  onNew: () => void;
  onMore: () => void;
  /** A thread was renamed: the list is read again. */
  onChanged: () => void;
  onDeleted: (threadId: string) => void;
  onClose: () => void;
}) {
  // What is typed, sent once typing pauses.
  const [typed, setTyped] = useState(query);
  useEffect(() => {
    if (typed.trim() === query) return;
    const t = setTimeout(() => onSearch(typed.trim()), 250);
    return () => clearTimeout(t);
  }, [typed, query, onSearch]);
  return (
    <div className="conversations" role="region" aria-label="Conversations" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <header>
        <h3>Conversations</h3>
        <button type="button" onClick={onClose} aria-label="Close conversations">×</button>
      </header>
      <input
        type="search"
        className="search-conversations"
        aria-label="Search conversations"
        placeholder="Search conversations (⌘K)"
        value={typed}
        maxLength={200}
        onChange={(e) => setTyped(e.target.value)}
        autoFocus
      />
      <button type="button" className="allow new-conversation" onClick={onNew}>New conversation</button>
      {threads === null && <p className="muted">Loading…</p>}
      {threads?.length === 0 && (query ? <p className="empty">No conversation holds “{query}”.</p> : <p className="empty">No conversations yet: what you ask is kept here.</p>)}
      {threads && threads.length > 0 && (
        <ul>
          {threads.map((t) => (
            <ThreadRow key={t.threadId} thread={t} current={t.threadId === current} onOpen={onOpen} onChanged={onChanged} onDeleted={onDeleted} />
          ))}
        </ul>
      )}
      {more && <button type="button" className="link" onClick={onMore}>Load older conversations</button>}
    </div>
  );
}

function ThreadRow({
  thread,
  current,
  onOpen,
  onChanged,
  onDeleted,
}: {
  thread: Thread;
  current: boolean;
  onOpen: (threadId: string) => void;
  onChanged: () => void;
  onDeleted: (threadId: string) => void;
}) {
  const [mode, setMode] = useState<"show" | "rename" | "delete">("show");
  const [title, setTitle] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const act = async (call: () => Promise<void>) => {
    setSending(true);
    setError("");
    try {
      await call();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  };
  const rename = () =>
    act(async () => {
      await aware.threads.renameThread({ threadId: thread.threadId, title: title.trim() });
      setMode("show");
      onChanged();
    });
  const remove = () =>
    act(async () => {
      await aware.threads.deleteThread({ threadId: thread.threadId });
      onDeleted(thread.threadId);
    });
  const when = thread.lastActivityAt ? whenText(timestampDate(thread.lastActivityAt)) : "";
  return (
    <li className="thread" aria-current={current ? "true" : undefined} data-thread-id={thread.threadId}>
      {mode === "rename" ? (
        <form
          className="rename"
          onSubmit={(e) => {
            e.preventDefault();
            if (title.trim()) void rename();
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.stopPropagation();
              setMode("show");
            }
          }}
        >
          <input aria-label="Conversation title" value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} autoFocus />
          <button type="submit" disabled={sending || !title.trim()}>Save</button>
          <button type="button" className="link" onClick={() => setMode("show")}>Cancel</button>
        </form>
      ) : (
        <div className="thread-row">
          <button type="button" className="open-thread" onClick={() => onOpen(thread.threadId)}>
            <span className="thread-title">{thread.title}</span>
            <span className="muted">{when}</span>
          </button>
          <button type="button" className="link" aria-label={`Rename “${thread.title}”`} onClick={() => { setTitle(thread.title); setMode("rename"); }}>
            Rename
          </button>
          <button type="button" className="link" aria-label={`Delete “${thread.title}”`} onClick={() => setMode("delete")}>
            Delete
          </button>
        </div>
      )}
      {mode === "delete" && (
        <div className="confirm-delete" role="group" aria-label="Confirm delete">
          <p>Delete this conversation and everything its runs left? This cannot be undone.</p>
          <button type="button" className="danger" disabled={sending} onClick={() => void remove()}>Delete conversation</button>
          <button type="button" disabled={sending} onClick={() => setMode("show")} autoFocus>Keep it</button>
        </div>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </li>
  );
}
