// What to ask: a new conversation offers the questions the open dataset (else the first one that
// is ready) suggests, and an answer offers its follow-ups. The server read each one as answerable
// before offering it; a click sends it as written.
import { matchPath, useLocation } from "react-router";
import { DatasetFormat, DatasetStatus } from "@aware/client";
import { useDatasets, useSuggestedQuestions } from "../lib/queries/datasets";

function Asks({ label, questions, busy, ask }: { label: string; questions: string[]; busy: boolean; ask: (q: string) => void }) {
  return (
    <div className="suggestions" role="group" aria-label={label}>
      {questions.map((q) => (
        <button key={q} type="button" className="suggestion" disabled={busy} onClick={() => ask(q)}>{q}</button>
      ))}
    </div>
  );
}

/** A new conversation's first questions, about the dataset on screen or the first ready one. */
export function SuggestedQuestions({ busy, ask }: { busy: boolean; ask: (q: string) => void }) {
  const { pathname } = useLocation();
  const open = matchPath("/datasets/:id", pathname)?.params.id;
  const ready = useDatasets().data?.filter((d) => d.status === DatasetStatus.READY);
  const dataset = ready?.find((d) => d.id === open) ?? ready?.find((d) => d.format !== DatasetFormat.MARKDOWN && d.format !== DatasetFormat.TEXT);
  const questions = useSuggestedQuestions(dataset?.id ?? "").data ?? [];
  if (!dataset || questions.length === 0) return null;
  return (
    <>
      <p className="muted suggestions-lead">Try one about <strong>{dataset.tableName}</strong>:</p>
      <Asks label={`Questions about ${dataset.tableName}`} questions={questions} busy={busy} ask={ask} />
    </>
  );
}

/** An answer's follow-ups. */
export function FollowUps({ questions, busy, ask }: { questions: string[]; busy: boolean; ask: (q: string) => void }) {
  if (questions.length === 0) return null;
  return <Asks label="Ask next" questions={questions} busy={busy} ask={ask} />;
}
