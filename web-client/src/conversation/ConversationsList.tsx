// The conversations panel of the assistant: the person's threads, newest activity first (title and
// last activity), to open one, rename it in place, delete it (after a confirmation that says what
// goes), or start a new conversation; a search box asks the server for the threads whose title or
// a question holds the words (⌘K or Ctrl+K opens the panel there). It slides over the assistant's
// log, on wide screens and in the phone drawer alike: a non-modal dialog (Radix UI), so Esc or a
// click elsewhere closes it and the focus goes back to the "Conversations" button.
import { useRef, useState } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useDebounce } from "use-debounce";
import { errorText } from "../lib/api";
import { threadListQuery } from "../lib/queries/threads";
import { Tip } from "../ui/Tooltip";
import { useConversation } from "./ConversationContext";
import { ownsEscape } from "./escape";
import { ThreadRow } from "./ThreadRow";

/** The panel's content; its Dialog.Root and trigger are the assistant's header. */
export function ConversationsList() {
  const conversation = useConversation();
  // What is typed, searched for once typing pauses.
  const [typed, setTyped] = useState("");
  const [search] = useDebounce(typed.trim(), 250);
  const list = useInfiniteQuery(threadListQuery(search));
  const threads = list.data?.pages.flatMap((p) => p.threads);
  const searchBox = useRef<HTMLInputElement>(null);
  const openThread = (id: string) => {
    conversation.setListOpen(false);
    conversation.open(id);
  };
  return (
    <Dialog.Content
      className="conversations"
      aria-describedby={undefined}
      onOpenAutoFocus={(e) => {
        e.preventDefault();
        searchBox.current?.focus();
      }}
      onEscapeKeyDown={(e) => {
        if (ownsEscape(e.target)) e.preventDefault();
      }}
    >
      <header>
        <Dialog.Title className="panel-title">Conversations</Dialog.Title>
        <Tip text="Close conversations">
          <Dialog.Close className="icon-button" aria-label="Close conversations">×</Dialog.Close>
        </Tip>
      </header>
      <input
        ref={searchBox}
        type="search"
        className="search-conversations"
        aria-label="Search conversations"
        placeholder="Search conversations (⌘K)"
        value={typed}
        maxLength={200}
        onChange={(e) => setTyped(e.target.value)}
      />
      <button type="button" className="allow new-conversation" onClick={() => openThread("")}>New conversation</button>
      {list.isError && <p className="error" role="alert">{errorText(list.error)}</p>}
      {list.isPending && <p className="muted">Loading…</p>}
      {threads?.length === 0 && (search ? <p className="empty">No conversation holds “{search}”.</p> : <p className="empty">No conversations yet: what you ask is kept here.</p>)}
      {threads && threads.length > 0 && (
        <ul>
          {threads.map((t) => (
            <ThreadRow
              key={t.threadId}
              thread={t}
              current={t.threadId === conversation.threadId}
              onOpen={openThread}
              onDeleted={(id) => {
                if (id === conversation.threadId) conversation.open("");
                // The row and its button are gone: the focus stays in the panel.
                searchBox.current?.focus();
              }}
            />
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <button type="button" className="link" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          Load older conversations
        </button>
      )}
    </Dialog.Content>
  );
}
