// The run inspector: the question, the run's answer and rich results replayed from its event log,
// the steps it took, its trace timeline and its SQL — for a chat run; a query run shows its SQL or
// plan and its result. A run still going is followed until it ends. A run whose data changed since
// says so under its title; one that ran a query can compute it again ("Rerun") under its answer.
import { useEffect, useRef } from "react";
import { useParams } from "react-router";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { RunKind, RunStatus, timestampDate } from "@aware/client";
import { errorText, isNotFound } from "../lib/api";
import { outcomeText, runStateText, usageText } from "../lib/outcome";
import { usePageTitle } from "../lib/pageTitle";
import { runEventsQuery, runQuery, runTraceQuery } from "../lib/queries/runs";
import { keys } from "../lib/queryKeys";
import { isActive, ranQuery } from "../lib/transcript";
import { Rerun, StaleBadge } from "../inspector/Rerun";
import { RunSteps } from "../inspector/RunSteps";
import { queryTitle } from "../inspector/runTitle";
import { steps } from "../inspector/steps";
import { Trace } from "../inspector/Trace";
import { TranscriptItems } from "../inspector/TranscriptItems";
import { Markdown } from "../results/Markdown";
import { SqlBlock } from "../results/SqlBlock";

export function RunPage() {
  const { id = "" } = useParams();
  const client = useQueryClient();
  const { data: run, error } = useQuery(runQuery(id));
  // The run's rich results and its steps come from its event log, read once — and again while the
  // run goes, and once more when it ends (for its last events).
  const going = run !== undefined && isActive(run.status);
  const log = useQuery(runEventsQuery(id, going));
  const wasGoing = useRef(false);
  useEffect(() => {
    if (wasGoing.current && !going) void client.invalidateQueries({ queryKey: keys.runs.events(id) });
    wasGoing.current = going;
  }, [going, id, client]);
  const trace = useQuery(runTraceQuery(id));
  const chat = run?.kind === RunKind.CHAT;
  const title = !run ? undefined : chat ? run.question : run.kind === RunKind.SQL ? "SQL query" : `Query plan — ${queryTitle(run)}`;
  usePageTitle(title ?? "Run");
  // A run gone with its conversation is gone, even if a copy read before is cached.
  if (error && (!run || isNotFound(error))) return <p className="error" role="alert">{errorText(error)}</p>;
  if (!run) return <p className="muted">Loading…</p>;
  const usage = usageText(run.usage);
  const transcript = log.data?.transcript;
  const shown = transcript && transcript.items.length > 0;
  const runSteps = log.data ? steps(log.data.events) : null;
  const noun = chat ? "answer" : "result";
  // Any finished run that computed a query can compute it again (RerunQuery refuses the others).
  const rerun = !going && (run.datasets.length > 0 || (chat ? ranQuery(transcript?.items ?? []) : run.status === RunStatus.SUCCEEDED && run.compiledSql !== ""));
  return (
    <section aria-labelledby="run-title" className="inspector">
      <h1 id="run-title" className="run-question">{title}</h1>
      <p className="muted">
        run <code>{run.runId}</code> · {run.createdAt ? timestampDate(run.createdAt).toLocaleString() : ""} ·{" "}
        <strong>{transcript && chat ? outcomeText({ ...transcript, status: run.status, outcome: run.outcome || transcript.outcome }) : runStateText(run.status, run.outcome)}</strong>
        {run.model ? <> · {run.model}</> : null}
        {usage ? <> · <span className="usage">{usage}</span></> : null}
      </p>
      {run.stale && <StaleBadge changed={run.changedDatasets} noun={noun} />}
      {!chat && <SqlBlock sql={run.question} />}
      {chat && shown && (
        <div className="transcript">
          <TranscriptItems items={transcript.items} />
        </div>
      )}
      {chat && (transcript || log.isError) && !shown && run.finalText && <Markdown className="answer" text={run.finalText} />}
      {!chat && run.resultSummary && <p>{run.resultSummary}</p>}
      {run.error && <p className="error">{run.error.message}</p>}
      {rerun && <Rerun runId={run.runId} noun={noun} lead={<span className="muted">Compute its queries again over the data as it is now.</span>} />}
      {chat && log.isError && <p className="error" role="alert">Cannot read the run's steps: {errorText(log.error)}</p>}
      {chat && runSteps && <RunSteps list={runSteps} />}
      <Trace spans={trace.data ?? []} />
      {run.compiledSql && run.compiledSql !== run.question && (<><h2>SQL</h2><SqlBlock sql={run.compiledSql} /></>)}
    </section>
  );
}
