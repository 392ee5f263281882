// The file in an approved folder a dataset was imported from, and "Refresh from file".
import { useState } from "react";
import type { Dataset, RefreshDatasetResponse } from "@aware/client";
import { errorText } from "../../lib/api";
import { count } from "../../lib/format";
import { useRefreshDataset } from "../../lib/queries/datasets";

/**
 * The file in an approved folder a dataset was imported from and, for those who may import files
 * (`canRefresh`), reading it again. What happened is said in words, once the page shows the new
 * content (the dataset's new version). A failure leaves the dataset as it was and shows the
 * server's sentence.
 */
export function ImportedFrom({ dataset, canRefresh }: { dataset: Dataset; canRefresh: boolean }) {
  const read = useRefreshDataset();
  // What the last click did, about the content it left (`version`): once the content changes
  // otherwise (the assistant refreshed it), those words are stale and go.
  const [said, setSaid] = useState<{ text: string; failed: boolean; version: string } | null>(null);
  if (!dataset.origin) return null;
  const { root, path } = dataset.origin;
  const refresh = () => {
    setSaid(null);
    read.mutate(dataset.id, {
      onSuccess: (r) => setSaid({ text: refreshText(dataset, r), failed: false, version: r.dataset?.versionHash ?? dataset.versionHash }),
      onError: (e) => setSaid({ text: errorText(e), failed: true, version: dataset.versionHash }),
    });
  };
  const shown = said?.version === dataset.versionHash ? said : null;
  return (
    <div className="imported-from">
      <p className="muted">
        Imported from <code>{root}:{path}</code>
        {canRefresh && (
          <>
            {" · "}
            <button type="button" disabled={read.isPending} onClick={refresh}>{read.isPending ? "Reading the file again…" : "Refresh from file"}</button>
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
