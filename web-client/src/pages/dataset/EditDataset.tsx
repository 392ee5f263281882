// Rename and describe a dataset in one form — display name, table name, what it is, and what each
// column means and in which unit: only what changed is sent; the server's refusal is shown in its
// words.
import { useState } from "react";
import type { Dataset } from "@aware/client";
import { errorText } from "../../lib/api";
import { useUpdateDataset } from "../../lib/queries/datasets";
import { ScrollBox } from "../../results/ScrollBox";

interface Note {
  description: string;
  unit: string;
}

/** Rename and describe, in one form: only what changed is sent; the server's refusal is shown in its words. */
export function EditDataset({ dataset, onDone }: { dataset: Dataset; onDone: () => void }) {
  const update = useUpdateDataset();
  const before = new Map<string, Note>(dataset.columnNotes.map((n) => [n.column, { description: n.description, unit: n.unit }]));
  const [name, setName] = useState(dataset.name);
  const [tableName, setTableName] = useState(dataset.tableName);
  const [description, setDescription] = useState(dataset.description);
  const [notes, setNotes] = useState(before);
  const noteOf = (m: Map<string, Note>, column: string) => m.get(column) ?? { description: "", unit: "" };
  const setNote = (column: string, part: Partial<Note>) => setNotes((m) => new Map(m).set(column, { ...noteOf(m, column), ...part }));
  const save = () => {
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
    if (change.name === undefined && change.tableName === undefined && change.description === undefined && changedNotes.length === 0) return onDone();
    // Done once the page shows the new names; a refusal is shown in the server's words.
    update.mutate({ datasetId: dataset.id, ...change }, { onSuccess: onDone });
  };
  return (
    <form className="edit-dataset" aria-label="Rename or describe the dataset" onSubmit={(e) => { e.preventDefault(); save(); }}>
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
      {update.isError && <p className="error" role="alert">{errorText(update.error)}</p>}
      <div className="actions">
        <button type="submit" className="allow" disabled={update.isPending}>Save</button>
        <button type="button" disabled={update.isPending} onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
