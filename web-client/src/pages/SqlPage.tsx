// The SQL page: one read-only SELECT over your datasets, run in the server's sandbox exactly as
// ExecuteSql runs it, its result a table any chart can be drawn from, its run one click away. A
// query the server estimates to read more rows than it runs without asking is not run: the page
// says what it would read and runs it only when asked to.
import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { DatasetStatus, errorInfo, type ExecuteSqlResponse } from "@aware/client";
import { aware, errorText } from "../lib/api";
import { count, formatBytes } from "../lib/format";
import { AppLink } from "../lib/links";
import { usePageTitle } from "../lib/pageTitle";
import { useDatasets } from "../lib/queries/datasets";
import { ResultTable } from "../results/ResultTable";
import { SqlBlock } from "../results/SqlBlock";

/** The SQL typed last, kept for this tab so a visit to another page does not lose it. */
const DRAFT = "aware.sql";

/** A refusal for cost: what the server estimated the query would read. */
function costOf(e: unknown): { rows: bigint; bytes: bigint } | undefined {
  const info = errorInfo(e);
  if (info?.reason !== "COST_CONFIRMATION_REQUIRED") return undefined;
  return { rows: BigInt(info.metadata.estimated_rows ?? "0"), bytes: BigInt(info.metadata.estimated_bytes ?? "0") };
}

export function SqlPage() {
  usePageTitle("SQL");
  const tables = (useDatasets().data ?? []).filter((d) => d.status === DatasetStatus.READY).map((d) => d.tableName).sort();
  const [sql, setSql] = useState(() => sessionStorage.getItem(DRAFT) ?? "");
  // The text each answer is for: editing the box does not relabel a result already shown.
  const run = useMutation({
    mutationFn: ({ text, heavy }: { text: string; heavy: boolean }): Promise<ExecuteSqlResponse & { text: string }> =>
      aware.query.executeSql({ sql: text, runHeavy: heavy }).then((r) => Object.assign(r, { text })),
  });
  const submit = (heavy: boolean) => {
    const text = heavy ? run.variables?.text ?? sql : sql;
    if (!text.trim()) return;
    sessionStorage.setItem(DRAFT, text);
    run.mutate({ text, heavy });
  };
  const cost = run.isError ? costOf(run.error) : undefined;
  const answer = run.data;

  return (
    <section aria-labelledby="sql-title" className="sql-page">
      <h1 id="sql-title">SQL</h1>
      <p className="muted">
        One <code>SELECT</code> (or <code>WITH … SELECT</code>) over your datasets, run read-only in a sandbox.
        {tables.length > 0 && <> Your tables: {tables.map((t, i) => <span key={t}>{i > 0 && ", "}<code>{t}</code></span>)}.</>}
      </p>
      <form
        className="sql-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit(false);
        }}
      >
        <label htmlFor="sql-text">SQL query</label>
        <textarea
          id="sql-text"
          value={sql}
          rows={5}
          spellCheck={false}
          placeholder="SELECT plan, count(*) AS customers FROM customer_churn GROUP BY plan"
          onChange={(e) => setSql(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              submit(false);
            }
          }}
        />
        <div className="actions">
          <button type="submit" className="allow" disabled={!sql.trim() || run.isPending}>
            {run.isPending ? "Running…" : "Run"}
          </button>
          <span className="muted">Ctrl+Enter runs it too</span>
        </div>
      </form>
      {cost && (
        <div className="card standard" role="group" aria-label="This query is large">
          <p>
            This query would read about {count(cost.rows)} rows ({formatBytes(cost.bytes)}), more than this server runs without
            asking. Nothing has run yet.
          </p>
          <div className="actions">
            <button type="button" onClick={() => run.reset()}>Cancel</button>
            <button type="button" className="allow" onClick={() => submit(true)}>Run it</button>
          </div>
        </div>
      )}
      {run.isError && !cost && <p className="error" role="alert">{errorText(run.error)}</p>}
      {answer?.table && (
        <div className="sql-result">
          <p className="muted">
            Ran in {count(answer.table.execTimeMs)} ms · <AppLink to={`/runs/${answer.runId}`}>Open the run</AppLink>
          </p>
          <ResultTable table={answer.table} caption="Query result" expandable />
          <SqlBlock sql={answer.executedSql} label="SQL that ran" />
        </div>
      )}
    </section>
  );
}
