// The message box: Enter sends; Shift+Enter starts a new line (and Enter while an input method
// composes a word is the composition's). The box grows with its lines, up to six.
import { useRef } from "react";
import { useConversation } from "./ConversationContext";

export function MessageBox() {
  const { draft, setDraft, send } = useConversation();
  const form = useRef<HTMLFormElement>(null);
  return (
    <form
      ref={form}
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        const text = draft.trim();
        if (!text) return;
        setDraft("");
        send(text);
      }}
    >
      <label htmlFor="ask" className="sr-only">Message</label>
      <textarea
        id="ask"
        rows={Math.min(6, Math.max(1, draft.split("\n").length))}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            form.current?.requestSubmit();
          }
        }}
        placeholder="Ask about your data…"
        aria-describedby="ask-hint"
        autoComplete="off"
      />
      <span id="ask-hint" className="sr-only">Enter sends; Shift+Enter starts a new line</span>
      <button type="submit" disabled={!draft.trim()}>Send</button>
    </form>
  );
}
