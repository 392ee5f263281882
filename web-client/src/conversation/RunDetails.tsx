// "Details" on a turn: a sheet with the run's capsule — its id (a link to the run inspector),
// outcome, runtime, model, token usage when a model was used, the data versions it read, the plan,
// the SQL (highlighted, with Copy) and the result summary.
import { useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { timestampDate, type Run } from "@aware/client";
import { errorText } from "../lib/api";
import { AppLink } from "../lib/links";
import { runStateText, usageText } from "../lib/outcome";
import { runQuery } from "../lib/queries/runs";
import { SqlBlock } from "../results/SqlBlock";
import { DialogClose, DialogContent, DialogRoot, DialogTrigger } from "../ui/Dialog";

/** A JSON text laid out for reading (the plan as the server stored it when it is not JSON). */
function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** " (changed since)" or " (deleted since)" for a dataset the run read that is not as it read it. */
function sinceText(run: Run, datasetId: string): string {
  const now = run.changedDatasets.find((c) => c.datasetId === datasetId);
  return !now ? "" : now.versionHash ? " (changed since)" : " (deleted since)";
}

export function RunDetails({ runId }: { runId: string }) {
  const [open, setOpen] = useState(false);
  // Left for the run's page: the focus goes to that page, not back to "Details".
  const leaving = useRef(false);
  return (
    <DialogRoot
      open={open}
      onOpenChange={(o) => {
        if (o) leaving.current = false;
        setOpen(o);
      }}
    >
      <DialogTrigger className="link">Details</DialogTrigger>
      {open && (
        <DialogContent variant="sheet" title="Run details" closeLabel="Close details" onCloseAutoFocus={(e) => leaving.current && e.preventDefault()}>
          <Capsule runId={runId} onLeave={() => (leaving.current = true)} />
        </DialogContent>
      )}
    </DialogRoot>
  );
}

function Capsule({ runId, onLeave }: { runId: string; onLeave: () => void }) {
  const { data: run, error } = useQuery(runQuery(runId));
  if (error) return <p className="error" role="alert">{errorText(error)}</p>;
  if (!run) return <p className="muted">Loading…</p>;
  return <CapsuleFields run={run} onLeave={onLeave} />;
}

function CapsuleFields({ run, onLeave }: { run: Run; onLeave: () => void }) {
  const started = run.createdAt ? timestampDate(run.createdAt).getTime() : 0;
  const ended = run.completedAt ? timestampDate(run.completedAt).getTime() : 0;
  const usage = usageText(run.usage);
  return (
    <dl className="capsule">
      <dt>Run</dt>
      <dd className="id">
        <DialogClose asChild>
          <AppLink to={`/runs/${run.runId}`} onClick={onLeave}>{run.runId}</AppLink>
        </DialogClose>
      </dd>
      <dt>Outcome</dt><dd>{runStateText(run.status, run.outcome)}</dd>
      <dt>Runtime</dt><dd>{ended ? `${ended - started} ms` : "running"}</dd>
      <dt>Model</dt><dd>{run.model || "—"}</dd>
      {usage && <><dt>Usage</dt><dd className="usage">{usage}</dd></>}
      <dt>Data</dt><dd>{run.datasets.map((d) => `${d.tableName} @ ${d.versionHash.slice(0, 12)}${sinceText(run, d.datasetId)}`).join(", ") || "—"}</dd>
      <dt>Plan</dt><dd><pre className="plan">{run.planJson ? pretty(run.planJson) : "—"}</pre></dd>
      <dt>SQL</dt><dd>{run.compiledSql ? <SqlBlock sql={run.compiledSql} /> : "—"}</dd>
      <dt>Result</dt><dd>{run.resultSummary || "—"}</dd>
    </dl>
  );
}
