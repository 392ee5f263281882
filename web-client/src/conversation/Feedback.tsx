// 👍 / 👎 on a finished answer, kept by the server (one rating per run: a new one replaces it), with
// an optional reason asked right after a rating. Shown as given after a reload (GetThread's
// `turn.feedback`).
import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { FeedbackRating, type Feedback } from "@aware/client";
import { aware, errorText } from "../lib/api";
import { keys } from "../lib/queryKeys";
import { Tip } from "../ui/Tooltip";

/** A thumb, drawn (an emoji needs a font that not every system has): up, or turned down. */
function Thumb({ down }: { down: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round">
      <g transform={down ? "rotate(180 12 12)" : undefined}>
        <path d="M2 10h4v11H2z" />
        <path d="M6 10l4-8c1.7 0 3 1.3 3 3v4h6.5c1.4 0 2.4 1.3 2.1 2.6l-1.6 7c-.3 1.3-1.2 2.4-2.3 2.4H6" />
      </g>
    </svg>
  );
}

export function FeedbackButtons({ runId, initial }: { runId: string; initial?: Feedback }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [draft, setDraft] = useState("");
  // The rating as the server kept it (GetThread's `turn.feedback` after a reload).
  const kept = useMutation({
    mutationFn: ({ up, why }: { up: boolean; why: string }) => aware.sendFeedback(runId, up ? "up" : "down", why),
    // A thread's turns carry their feedback.
    onSuccess: () => client.invalidateQueries({ queryKey: keys.threads.all }),
  });
  const rating = kept.data?.rating ?? initial?.rating ?? FeedbackRating.UNSPECIFIED;
  const reason = kept.data ? kept.data.reason : (initial?.reason ?? "");
  const sending = kept.isPending;
  const error = kept.isError ? errorText(kept.error) : "";

  const rate = async (up: boolean, why: string): Promise<boolean> => {
    try {
      await kept.mutateAsync({ up, why });
      return true;
    } catch {
      return false;
    }
  };
  const choose = async (up: boolean) => {
    if (await rate(up, "")) {
      setDraft("");
      setAsking(true);
    }
  };
  const button = (up: boolean) => (
    <Tip text={up ? "Good answer" : "Bad answer"}>
      <button
        type="button"
        className="rate"
        aria-pressed={rating === (up ? FeedbackRating.UP : FeedbackRating.DOWN)}
        aria-label={up ? "Good answer" : "Bad answer"}
        disabled={sending}
        onClick={() => void choose(up)}
      >
        <Thumb down={!up} />
      </button>
    </Tip>
  );
  return (
    <div className="feedback">
      <span role="group" aria-label="Rate this answer" className="rating">
        {button(true)}
        {button(false)}
      </span>
      {asking ? (
        <form
          className="reason"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await rate(rating === FeedbackRating.UP, draft.trim())) setAsking(false);
          }}
          data-own-escape
          onKeyDown={(e) => e.key === "Escape" && setAsking(false)}
        >
          <input aria-label="Why? (optional)" placeholder="Why? (optional)" value={draft} maxLength={1000} onChange={(e) => setDraft(e.target.value)} autoFocus />
          <button type="submit" disabled={sending || !draft.trim()}>Add</button>
          <button type="button" className="link" onClick={() => setAsking(false)}>Skip</button>
        </form>
      ) : (
        reason && <span className="muted reason-text">“{reason}”</span>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}
