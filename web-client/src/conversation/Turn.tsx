// One question and the run that answers it. Laid out so a streaming answer only ever grows at
// the bottom: where the run is ("working…", "succeeded") and its Details sit under the question
// from the start, and the rating is added once the answer is done — nothing already on screen
// moves while it streams. A finished answer whose data changed since says so at its end, with
// "Rerun" (GetRun's `stale`, read for turns that ran a query); one that failed, was not
// understood or had a step fail offers "Try again", which sends the same question again.
import { useQuery } from "@tanstack/react-query";
import { RunOutcome, RunStatus, ToolPhase } from "@aware/client";
import { outcomeText } from "../lib/outcome";
import { runQuery } from "../lib/queries/runs";
import { isActive, ranQuery } from "../lib/transcript";
import { Rerun, StaleBadge } from "../inspector/Rerun";
import { TranscriptItems } from "../inspector/TranscriptItems";
import type { Turn as TurnModel } from "./ConversationContext";
import { EditQuestion } from "./EditQuestion";
import { FeedbackButtons } from "./Feedback";
import { RunDetails } from "./RunDetails";
import { FollowUps } from "./Suggestions";

/** Whether another try may do better: the run failed or did not understand, or a step failed. */
function worthRetrying(t: TurnModel): boolean {
  if (t.outcome === RunOutcome.FAILED || t.outcome === RunOutcome.NOT_UNDERSTOOD) return true;
  return t.items.some((i) => i.kind === "tool" && i.phase === ToolPhase.FAILED);
}

export function Turn({
  turn: t,
  editing,
  busy,
  onEdit,
  onResend,
  onRetry,
  onAsk,
  latest,
}: {
  turn: TurnModel;
  editing: boolean;
  /** A run of the conversation is going: Try again waits for it. */
  busy: boolean;
  onEdit: (editing: boolean) => void;
  onResend: (text: string) => void;
  onRetry: () => void;
  /** Sends a follow-up the answer offers. */
  onAsk: (question: string) => void;
  /** The conversation's newest turn: only it offers follow-ups and Try again, which the
   *  assistant reads after the newest answer. */
  latest: boolean;
}) {
  const going = isActive(t.status);
  // Whether the data it read changed since: asked once it is over, for answers that ran a query.
  const { data: run } = useQuery({ ...runQuery(t.runId), enabled: !going && ranQuery(t.items) });
  const stale = run?.stale ? run.changedDatasets : [];
  const retry = !going && latest && worthRetrying(t);
  return (
    <section className="turn" data-run-id={t.runId} data-status={RunStatus[t.status]}>
      {editing ? (
        <EditQuestion runId={t.runId} question={t.question} onResend={onResend} onCancel={() => onEdit(false)} />
      ) : (
        <div className="question-row">
          {/* Kept in the layout while the run goes (hidden, out of the tab order), so the
              question does not move when it appears. */}
          <button type="button" className={`link edit ${going ? "invisible" : ""}`} aria-label={`Edit and resend “${t.question}”`} onClick={() => onEdit(true)}>
            Edit
          </button>
          <p className="question">{t.question}</p>
        </div>
      )}
      <div className="turn-meta">
        <span className="muted outcome">{outcomeText(t)}</span>
        <RunDetails runId={t.runId} />
      </div>
      <TranscriptItems items={t.items} />
      {!going && latest && <FollowUps questions={t.followUps ?? []} busy={busy} ask={onAsk} />}
      {!going && stale.length > 0 && <Rerun runId={t.runId} lead={<StaleBadge changed={stale} />} />}
      {!going && (
        <footer>
          {retry && (
            <button type="button" className="try-again" disabled={busy} aria-label={`Try again: ask “${t.question}” once more`} onClick={onRetry}>
              Try again
            </button>
          )}
          <FeedbackButtons runId={t.runId} initial={t.feedback} />
        </footer>
      )}
    </section>
  );
}
