// A question back from a run (`ClarificationRequired`): the request was ambiguous against the
// data — "price" could be price_eur or price_usd — and the run waits until the person picks one
// of the options the server read from the data, or dismisses the question. Like a confirmation
// card, it is rebuilt from the run's events, so a reopened conversation shows how it ended.
import { useEffect, useId, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { ClarificationKind, ConfirmationResolution, timestampDate, type ClarificationRequired } from "@aware/client";
import { aware, errorText } from "../lib/api";
import { count } from "../lib/format";
import { QUESTION_ENDED } from "../lib/outcome";
import type { ClarificationEnd } from "../lib/transcript";

export function ClarificationCard({ q, ended }: { q: ClarificationRequired; ended?: ClarificationEnd }) {
  const questionId = useId();
  const rememberHint = useId();
  const [remember, setRemember] = useState(false);
  // The answer this page sent; a choice the server refuses leaves the question open, to pick again.
  const send = useMutation({
    mutationFn: async (choice: string): Promise<ClarificationEnd> => {
      const r = choice ? await aware.clarify(q.clarificationId, choice, remember) : await aware.dismissClarification(q.clarificationId);
      return { resolution: r.resolution, choice, remembered: choice !== "" && remember };
    },
  });
  const local = send.data;
  const sending = send.isPending;
  const error = send.isError ? errorText(send.error) : "";
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

  const answer = (choice: string) => send.mutate(choice);

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
            QUESTION_ENDED[end.resolution]
          )}
        </p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}
