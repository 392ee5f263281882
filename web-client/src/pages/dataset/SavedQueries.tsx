// The verified queries: each a question and the SQL a person approved for it, with which the
// assistant answers that question from then on; each can be deleted (after a confirmation).
import { timestampDate, type SavedQuery } from "@aware/client";
import { errorText } from "../../lib/api";
import { whenText } from "../../lib/format";
import { useDeleteSavedQuery, useSavedQueries } from "../../lib/queries/datasets";
import { SqlBlock } from "../../results/SqlBlock";
import { ConfirmDialog } from "../../ui/ConfirmDialog";

export function SavedQueries() {
  const { data: queries, error } = useSavedQueries();
  return (
    <section aria-labelledby="saved-title" className="saved-queries">
      <h2 id="saved-title">Verified queries</h2>
      <p className="muted">
        Questions the assistant answers with exactly the SQL you approved. After a question, say “remember this query as …” to add one.
      </p>
      {error && <p className="error" role="alert">{errorText(error)}</p>}
      {queries?.length === 0 && <p className="empty">No verified queries yet.</p>}
      {queries && queries.length > 0 && (
        <ul aria-label="Verified queries">
          {queries.map((q) => <SavedQueryItem key={q.id} query={q} />)}
        </ul>
      )}
    </section>
  );
}

function SavedQueryItem({ query: q }: { query: SavedQuery }) {
  const remove = useDeleteSavedQuery();
  return (
    <li>
      <div>
        <p><strong className="query-name">{q.name}</strong> <span className="muted">· saved {q.createdAt ? whenText(timestampDate(q.createdAt)) : ""}</span></p>
        <p>Answers “{q.question}” with:</p>
        <SqlBlock sql={q.sql} />
      </div>
      <ConfirmDialog
        trigger={<button type="button" aria-label={`Delete “${q.name}”`}>Delete</button>}
        title={`Delete the verified query “${q.name}”?`}
        description="The assistant will work that question out again from scratch."
        action="Delete query"
        onConfirm={() => remove.mutateAsync(q.id)}
      />
    </li>
  );
}
