// Curation: a dataset renamed (display name and table name) and described — what it is, and what
// each column means and in which unit: the semantic layer the assistant reads with the dataset —;
// where a saved result came from (its lineage) or which file in an approved folder it was imported
// from, and reading that file again when it changed; and the verified queries, each a question and
// the SQL a person approved for it, with which the assistant answers that question from then on.
import { useCallback, useEffect, useState } from "react";
import { timestampDate, type Dataset, type Lineage, type RefreshDatasetResponse, type SavedQuery } from "@aware/client";
import { aware, errorText } from "./api";
import { ConfirmInline } from "./Confirm";
import { count, whenText } from "./format";
import { ScrollBox } from "./ResultTable";
import { SqlBlock } from "./SqlBlock";

/** The columns with their types and, where the owner described them, their meaning and unit. */
export function Schema({ dataset }: { dataset: Dataset }) {
  const notes = new Map(dataset.columnNotes.map((n) => [n.column, n]));
  return (
    <ul className={`schema ${notes.size ? "described" : ""}`}>
      {dataset.columns.map((c) => {
        const note = notes.get(c.name);
        return (
          <li key={c.name}>
            <code>{c.name}</code> <span className="muted">{c.type}</span>
            {note?.description && <span className="column-note"> — {note.description}</span>}
            {note?.unit && <> <span className="unit" title="unit">{note.unit}</span></>}
          </li>
        );
      })}
    </ul>
  );
}

interface Note {
  description: string;
  unit: string;
}

/** Rename and describe, in one form: only what changed is sent; the server's refusal is shown in its words. */
export function EditDataset({ dataset, onSaved, onCancel }: { dataset: Dataset; onSaved: () => Promise<void>; onCancel: () => void }) {
  const before = new Map<string, Note>(dataset.columnNotes.map((n) => [n.column, { description: n.description, unit: n.unit }]));
  const [name, setName] = useState(dataset.name);
  const [tableName, setTableName] = useState(dataset.tableName);
  const [description, setDescription] = useState(dataset.description);
  const [notes, setNotes] = useState(before);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState("");
  const noteOf = (m: Map<string, Note>, column: string) => m.get(column) ?? { description: "", unit: "" };
  const setNote = (column: string, part: Partial<Note>) => setNotes((m) => new Map(m).set(column, { ...noteOf(m, column), ...part }));
  const save = async () => {
    const changedNotes = dataset.columns
      .map((c) => ({ column: c.name, ...noteOf(notes, c.name) }))
      .filter((n) => {
        const was = noteOf(before, n.column);
        return n.description.trim() !== was.description || n.unit.trim() !== was.unit;
      })
      // A note with neither a description nor a unit removes the column's note.
      .map((n) => ({ column: n.column, description: n.description.trim(), unit: n.unit.trim() }));
    const change = {
      name: name.trim() !== dataset.name ? name.trim() : undefined,
      tableName: tableName.trim() !== dataset.tableName ? tableName.trim() : undefined,
      description: description.trim() !== dataset.description ? description.trim() : undefined,
      columnNotes: changedNotes,
    };
    if (change.name === undefined && change.tableName === undefined && change.description === undefined && changedNotes.length === 0) return onCancel();
    setSaving(true);
    setError("");
    try {
      await aware.datasets.updateDataset({ datasetId: dataset.id, ...change });
      await onSaved();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="edit-dataset" aria-label="Rename or describe the dataset" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <div className="fields">
        <label>Display name <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} /></label>
        <label>
          Table name <input value={tableName} spellCheck={false} onChange={(e) => setTableName(e.target.value)} />
          <span className="muted">the name in SQL: lower-case letters, digits and _; saved queries follow a rename</span>
        </label>
        <label>
          Description
          <textarea value={description} rows={2} placeholder="What is in it, where it comes from, what a row is" onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      <ScrollBox label="Column notes">
        <table className="column-notes">
          <thead><tr><th>Column</th><th>Type</th><th>Meaning</th><th>Unit <span className="muted">(e.g. EUR, m², days)</span></th></tr></thead>
          <tbody>
            {dataset.columns.map((c) => (
              <tr key={c.name}>
                <td><code>{c.name}</code></td>
                <td className="muted">{c.type}</td>
                <td><input aria-label={`Meaning of ${c.name}`} value={noteOf(notes, c.name).description} onChange={(e) => setNote(c.name, { description: e.target.value })} /></td>
                <td><input aria-label={`Unit of ${c.name}`} className="unit-input" value={noteOf(notes, c.name).unit} maxLength={40} onChange={(e) => setNote(c.name, { unit: e.target.value })} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {error && <p className="error" role="alert">{error}</p>}
      <div className="actions">
        <button type="submit" className="allow" disabled={saving}>Save</button>
        <button type="button" disabled={saving} onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** Where a dataset saved from a query came from: the datasets it read (at which version), the SQL, the run. */
export function SavedFrom({ lineage, datasets }: { lineage: Lineage; datasets: Dataset[] }) {
  return (
    <section aria-labelledby="lineage-title" className="lineage">
      <h2 id="lineage-title">Where it came from</h2>
      <p>Saved from the result of a query over:</p>
      <ul>
        {lineage.sources.map((s) => {
          const now = datasets.find((d) => d.id === s.datasetId);
          return (
            <li key={s.datasetId}>
              {now ? <a href={`#/datasets/${s.datasetId}`}>{now.tableName}</a> : <>{s.tableName} <span className="muted">(deleted since)</span></>}
              {s.versionHash && <span className="muted"> · version {s.versionHash.slice(0, 12)}</span>}
              {now && s.versionHash && now.versionHash !== s.versionHash && <span className="muted"> · its data has changed since</span>}
            </li>
          );
        })}
      </ul>
      <SqlBlock sql={lineage.sql} label="The query" />
      {lineage.runId && <p><a href={`#/runs/${lineage.runId}`}>The run that computed it</a></p>}
    </section>
  );
}

/**
 * The file in an approved folder a dataset was imported from and, for those who may import files
 * (`canRefresh`), reading it again. What happened is said in words; the page's rows and columns
 * follow from `onRefreshed` (the dataset's new version). A failure leaves the dataset as it was and
 * shows the server's sentence.
 */
export function ImportedFrom({ dataset, canRefresh, onRefreshed }: { dataset: Dataset; canRefresh: boolean; onRefreshed: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  // What the last click did, about the content it left (`version`): once the content changes
  // otherwise (the assistant refreshed it), those words are stale and go.
  const [said, setSaid] = useState<{ text: string; failed: boolean; version: string } | null>(null);
  if (!dataset.origin) return null;
  const { root, path } = dataset.origin;
  const refresh = async () => {
    setBusy(true);
    setSaid(null);
    try {
      const r = await aware.datasets.refreshDataset({ datasetId: dataset.id });
      // The page shows the new content before the words say it changed.
      if (r.changed) await onRefreshed();
      setSaid({ text: refreshText(dataset, r), failed: false, version: r.dataset?.versionHash ?? dataset.versionHash });
    } catch (e) {
      setSaid({ text: errorText(e), failed: true, version: dataset.versionHash });
    } finally {
      setBusy(false);
    }
  };
  const shown = said?.version === dataset.versionHash ? said : null;
  return (
    <div className="imported-from">
      <p className="muted">
        Imported from <code>{root}:{path}</code>
        {canRefresh && (
          <>
            {" · "}
            <button type="button" disabled={busy} onClick={() => void refresh()}>{busy ? "Reading the file again…" : "Refresh from file"}</button>
          </>
        )}
      </p>
      {shown && (shown.failed ? <p className="error" role="alert">{shown.text}</p> : <p className="refresh-outcome" role="status">{shown.text}</p>)}
    </div>
  );
}

/** A refresh's outcome in words: rows before and after, and the columns that came or went. */
function refreshText(before: Dataset, r: RefreshDatasetResponse): string {
  const after = r.dataset;
  if (!r.changed || !after) return "Unchanged: the file holds the same content.";
  const names = (d: Dataset) => d.columns.map((c) => c.name);
  const added = names(after).filter((c) => !names(before).includes(c));
  const gone = names(before).filter((c) => !names(after).includes(c));
  const columns = [
    added.length ? `new ${added.length === 1 ? "column" : "columns"}: ${added.join(", ")}` : "",
    gone.length ? `${gone.length === 1 ? "column" : "columns"} gone: ${gone.join(", ")}` : "",
  ].filter(Boolean);
  return `Refreshed: ${count(r.previousRowCount)} rows before, ${count(after.rowCount)} now${columns.length ? `; ${columns.join("; ")}` : ""}.`;
}

/** The verified queries, read again whenever `refreshKey` changes (the shell's datasets list does after every run). */
export function SavedQueries({ refreshKey }: { refreshKey: unknown }) {
  const [queries, setQueries] = useState<SavedQuery[] | null>(null);
  const [error, setError] = useState("");
  const load = useCallback(async () => {
    try {
      setQueries((await aware.datasets.listSavedQueries({})).queries);
      setError("");
    } catch (e) {
      setError(errorText(e));
    }
  }, []);
  useEffect(() => void load(), [load, refreshKey]);
  return (
    <section aria-labelledby="saved-title" className="saved-queries">
      <h2 id="saved-title">Verified queries</h2>
      <p className="muted">
        Questions the assistant answers with exactly the SQL you approved. After a question, say “remember this query as …” to add one.
      </p>
      {error && <p className="error" role="alert">{error}</p>}
      {queries?.length === 0 && <p className="empty">No verified queries yet.</p>}
      {queries && queries.length > 0 && (
        <ul aria-label="Verified queries">
          {queries.map((q) => <SavedQueryItem key={q.id} query={q} onDeleted={load} />)}
        </ul>
      )}
    </section>
  );
}

function SavedQueryItem({ query: q, onDeleted }: { query: SavedQuery; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const remove = async () => {
    setBusy(true);
    setError("");
    try {
      await aware.datasets.deleteSavedQuery({ query: q.id });
      onDeleted();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <li>
      <div>
        <p><strong className="query-name">{q.name}</strong> <span className="muted">· saved {q.createdAt ? whenText(timestampDate(q.createdAt)) : ""}</span></p>
        <p>Answers “{q.question}” with:</p>
        <SqlBlock sql={q.sql} />
        {error && <p className="error" role="alert">{error}</p>}
      </div>
      {confirming ? (
        <ConfirmInline
          label="Confirm delete"
          question={`Delete the verified query “${q.name}”? The assistant will work that question out again from scratch.`}
          action="Delete query"
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <button type="button" aria-label={`Delete “${q.name}”`} onClick={() => setConfirming(true)}>Delete</button>
      )}
    </li>
  );
}
