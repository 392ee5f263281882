// "Edit" on a past question: the question in a box to change and resend — in a copy of the
// conversation up to there (a fork); the original stays as it was. Enter resends, Esc cancels.
import { useState } from "react";

export function EditQuestion({ runId, question, onResend, onCancel }: { runId: string; question: string; onResend: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(question);
  return (
    <form
      className="edit-question"
      data-own-escape
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) onResend(text.trim());
      }}
      onKeyDown={(e) => e.key === "Escape" && onCancel()}
    >
      <label htmlFor={`edit-${runId}`}>Edit your question</label>
      <textarea
        id={`edit-${runId}`}
        value={text}
        rows={2}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <p className="muted">Sent in a copy of this conversation up to here; the original stays as it is.</p>
      <div className="actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button type="submit" className="allow" disabled={!text.trim()}>Resend</button>
      </div>
    </form>
  );
}
