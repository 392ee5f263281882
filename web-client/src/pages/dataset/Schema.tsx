// A dataset's columns with their types and, where the owner described them, their meaning and unit
// (the semantic layer the assistant reads with the dataset).
import type { Dataset } from "@aware/client";

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
