// A question back from a run (`ClarificationRequired`): the request was ambiguous against the
// data — "price" could be price_eur or price_usd — and the run waits until the person picks one
// of the options the server read from the data, or dismisses the question. Like a confirmation
// card, it is rebuilt from the run's events, so a reopened conversation shows how it ended.
import { useEffect, useId, useRef, useState } from "react";
import { ClarificationKind, ConfirmationResolution, timestampDate, type ClarificationRequired } from "@aware/client";
import { aware, errorText } from "./api";
import { count } from "./format";

/** How a clarification ended, as its `ClarificationResolved` (or the answer this page sent) says. */
export interface ClarificationEnd {
  resolution: ConfirmationResolution;
  choice: string;
  remembered: boolean;
}

/** An unanswered question's end in words; an answered one names the choice instead. */
const ENDED: Record<ConfirmationResolution, string> = {
  [ConfirmationResolution.UNSPECIFIED]: "Answered",
  [ConfirmationResolution.APPROVED]: "Answered",
  [ConfirmationResolution.DENIED]: "Dismissed — none of these",
  [ConfirmationResolution.EXPIRED]: "Expired — no answer came in time",
  [ConfirmationResolution.CANCELLED]: "Cancelled — the run stopped before an answer",
  [ConfirmationResolution.SUPERSEDED]: "Superseded — a newer message took over",
};

/** A tool chip's or a run's outcome when a question back ended without an answer and nothing
 *  was computed after it. */
export const UNANSWERED: Partial<Record<ConfirmationResolution, string>> = {
  [ConfirmationResolution.DENIED]: "Not answered — nothing computed",
  [ConfirmationResolution.EXPIRED]: "Expired — nothing computed",
};

export function ClarificationCard({ q, ended }: { q: ClarificationRequired; ended?: ClarificationEnd }) {
  const questionId = useId();
  const rememberHint = useId();
  const [remember, setRemember] = useState(false);
  const [sending, setSending] = useState(false);
  const [local, setLocal] = useState<ClarificationEnd | undefined>();
  const [error, setError] = useState("");
  const [now, setNow] = useState(Date.now());
  const outcome = useRef<HTMLParagraphElement>(null);
  // The run's own event wins: it says what the server kept (e.g. whether the rule was saved).
  const end = ended ?? local;
  const expires = q.expiresAt ? timestampDate(q.expiresAt).getTime() : Date.now();
  useEffect(() => {
    if (end) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [end]);
  // The buttons that had focus are gone once answered: focus follows to what happened.
  useEffect(() => {
    if (local) outcome.current?.focus();
  }, [local]);
  const left = Math.max(0, Math.ceil((expires - now) / 1000));
  const dataset = q.dataset?.displayName || q.dataset?.id || "the dataset";

  const answer = async (choice: string) => {
    setSending(true);
    setError("");
    try {
      const r = choice ? await aware.clarify(q.clarificationId, choice, remember) : await aware.dismissClarification(q.clarificationId);
      setLocal({ resolution: r.resolution, choice, remembered: choice !== "" && remember });
    } catch (e) {
      // A choice the server refuses leaves the question open: the person can pick again.
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  };

  return (
    <div className="card clarification" role="group" aria-labelledby={questionId}>
      <p id={questionId} className="question-back">{q.question}</p>
      {end === undefined ? (
        <>
          <div className="options" role="group" aria-label="Options">
            {q.options.map((o) => (
              <button key={o.value} type="button" className="option" disabled={sending} onClick={() => answer(o.value)}>
                <span className="label">{o.label}</span>
                {/* A VALUE option's point is how many rows hold the value: said even if the label does not. */}
                {q.kind === ClarificationKind.VALUE && !o.label.includes(` ${o.count} row`) && (
                  <span className="count"> · {count(o.count)} row{o.count === 1n ? "" : "s"}</span>
                )}
              </button>
            ))}
          </div>
          <label className="remember">
            <input type="checkbox" checked={remember} disabled={sending} onChange={(e) => setRemember(e.target.checked)} aria-describedby={rememberHint} />
            Remember this for the dataset
          </label>
          <p id={rememberHint} className="muted hint">Kept as a rule in {dataset}’s description, so “{q.phrase}” is not asked about again.</p>
          <div className="actions">
            <button type="button" className="deny" disabled={sending} onClick={() => answer("")}>None of these</button>
            <span className="muted" aria-live="off">{left > 0 ? `expires in ${left}s` : "expiring…"}</span>
          </div>
        </>
      ) : (
        <p ref={outcome} tabIndex={-1} className={`resolved ${end.resolution === ConfirmationResolution.APPROVED ? "" : "stopped"}`}>
          {end.resolution === ConfirmationResolution.APPROVED && end.choice ? (
            <>
              You chose <strong>{end.choice}</strong>
              {end.remembered && <span className="rule"> — kept as a rule for {dataset}</span>}
            </>
          ) : (
            ENDED[end.resolution]
          )}
        </p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}
