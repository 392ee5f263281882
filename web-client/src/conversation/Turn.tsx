// One question and the run that answers it. Laid out so a streaming answer only ever grows at
// the bottom: where the run is ("working…", "succeeded") and its Details sit under the question
// from the start, and the rating is added once the answer is done — nothing already on screen
// moves while it streams.
import { RunStatus } from "@aware/client";
import { outcomeText } from "../lib/outcome";
import { isActive } from "../lib/transcript";
import { TranscriptItems } from "../inspector/TranscriptItems";
import type { Turn as TurnModel } from "./ConversationContext";
import { EditQuestion } from "./EditQuestion";
import { FeedbackButtons } from "./Feedback";
import { RunDetails } from "./RunDetails";

export function Turn({ turn: t, editing, onEdit, onResend }: { turn: TurnModel; editing: boolean; onEdit: (editing: boolean) => void; onResend: (text: string) => void }) {
  const going = isActive(t.status);
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
      {!going && (
        <footer>
          <FeedbackButtons runId={t.runId} initial={t.feedback} />
        </footer>
      )}
    </section>
  );
}
