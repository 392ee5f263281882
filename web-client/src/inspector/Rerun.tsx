// An answer whose data changed since, and its queries computed again. "Data changed since this
// answer: sales" when a dataset the run read is another version now (GetRun's `stale`, naming
// `changed_datasets`; a dataset that is gone says "deleted"), and "Rerun": RerunQuery computes
// each query the run ran again over the data as it is now, without a model, and says per query
// whether the result is the same as the one recorded, or which rows were added and removed, with
// the new result on demand. Nothing is recorded: the answer stays as it was, and the page says so.
import { useId, type ReactNode } from "react";
import { useMutation } from "@tanstack/react-query";
import type { Column, DatasetVersion, QueryRerun, Row, Table, Value } from "@aware/client";
import { aware, errorText } from "../lib/api";
import { count } from "../lib/format";
import { ResultTable } from "../results/ResultTable";
import { SqlBlock } from "../results/SqlBlock";

/** The changed datasets in words: "sales, league (deleted)". */
export function changedText(changed: DatasetVersion[]): string {
  return changed.map((d) => (d.versionHash ? d.tableName : `${d.tableName} (deleted)`)).join(", ");
}

/** "Data changed since this answer: sales" — nothing when no dataset it read changed. */
export function StaleBadge({ changed, noun = "answer" }: { changed: DatasetVersion[]; noun?: string }) {
  if (changed.length === 0) return null;
  return (
    <p className="stale-badge">
      <span className="stale-mark" aria-hidden="true" />
      Data changed since this {noun}: <span className="stale-names">{changedText(changed)}</span>
    </p>
  );
}

const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? "" : "s"}`;

/** What one query computed again came to, in words. */
export function rerunVerdict(q: QueryRerun): { text: string; same: boolean } {
  if (q.resultSha256 && q.resultSha256 === q.recordedSha256) return { text: "Same result as before", same: true };
  const added = q.addedRows.length;
  const removed = q.removedRows.length;
  if (!q.recordedRowsKept) {
    return { text: "Different result from before (the one recorded was too large to compare row by row)", same: false };
  }
  if (added === 0 && removed === 0) {
    // Rows the same as a multiset, the hash not: the columns differ (or no hash was recorded).
    return q.recordedSha256 ? { text: "Same rows as before, other columns", same: false } : { text: "Same rows as before", same: true };
  }
  return { text: `${plural(added, "row")} added, ${count(removed)} removed`, same: false };
}

const textValue = (s: string): Value => ({ $typeName: "aware.v1.Value", kind: { case: "stringValue", value: s } });

/** The rows added and removed as one table, each row saying which it is, under the new result's
 *  columns (named by position when the recorded rows have another number of columns). */
function diffTable(q: QueryRerun): Table | undefined {
  if (q.addedRows.length === 0 && q.removedRows.length === 0) return undefined;
  const width = Math.max(0, ...q.addedRows.map((r) => r.values.length), ...q.removedRows.map((r) => r.values.length));
  const known = q.result?.columns ?? [];
  const base: Column = known[0] ?? { $typeName: "aware.v1.Column", name: "", type: "", kind: 0, nullable: true };
  const columns: Column[] = [
    { ...base, name: "change", type: "" },
    ...Array.from({ length: width }, (_, i) => known[i] && known.length === width ? known[i] : { ...base, name: `column ${i + 1}`, type: "" }),
  ];
  const marked = (rows: Row[], what: string): Row[] => rows.map((r) => ({ ...r, values: [textValue(what), ...r.values] }));
  const rows = [...marked(q.addedRows, "added"), ...marked(q.removedRows, "removed")];
  return { $typeName: "aware.v1.Table", columns, rows, rowCount: BigInt(rows.length), truncated: false, execTimeMs: 0n };
}

function QueryAgain({ q, at, of }: { q: QueryRerun; at: number; of: number }) {
  if (q.error) {
    return (
      <li className="rerun-query">
        <p className="error rerun-error" role="alert">
          {of > 1 && <span className="rerun-which">Query {at + 1}: </span>}
          Could not compute it again: {q.error.message}
        </p>
      </li>
    );
  }
  const verdict = rerunVerdict(q);
  const diff = diffTable(q);
  const unchanged = Number(q.unchangedRows);
  const which = of > 1 ? `, query ${at + 1}` : "";
  return (
    <li className="rerun-query">
      <p className="rerun-verdict">
        {of > 1 && <span className="rerun-which">Query {at + 1}: </span>}
        <strong className={verdict.same ? "same" : "changed"}>{verdict.text}</strong>
        {!verdict.same && q.recordedRowsKept && unchanged > 0 && <span className="muted"> · {plural(unchanged, "row")} unchanged</span>}
      </p>
      {diff && <ResultTable table={diff} caption={`Rows added and removed${which}`} />}
      {q.result && (
        <details className="rerun-new">
          <summary>New result · {plural(q.result.rows.length, "row")}</summary>
          <SqlBlock sql={q.sql} />
          <ResultTable table={q.result} caption={`New result${which}`} expandable />
        </details>
      )}
    </li>
  );
}

/**
 * "Rerun" and what it came to. `lead` goes before the button on its line (a stale badge, or what
 * the button does); `noun` is what the run gave ("answer", "result") and stays as it was.
 */
export function Rerun({ runId, lead, noun = "answer" }: { runId: string; lead?: ReactNode; noun?: string }) {
  const again = useMutation({ mutationFn: () => aware.rerunQuery(runId) });
  const queries = again.data?.queries ?? [];
  const note = useId();
  return (
    <div className="rerun">
      <div className="rerun-bar">
        {lead}
        <button type="button" className="rerun-button" onClick={() => again.mutate()} disabled={again.isPending} aria-describedby={note}>
          {again.isPending ? "Rerunning…" : "Rerun"}
        </button>
        <span id={note} className="sr-only">Computes this {noun}'s queries again over the data as it is now; nothing is saved</span>
      </div>
      {again.isError && <p className="error rerun-error" role="alert">Could not compute it again: {errorText(again.error)}</p>}
      {again.data && (
        <div className="rerun-result" role="group" aria-label="Computed again">
          <p className="muted rerun-note">Computed again now; the {noun} above is unchanged.</p>
          {queries.length === 0 ? (
            <p className="muted">No query to compute again.</p>
          ) : (
            <ol className="rerun-queries">
              {queries.map((q, i) => <QueryAgain key={q.runId + i} q={q} at={i} of={queries.length} />)}
            </ol>
          )}
        </div>
      )}
    </div>
  );
}
