// `search_datasets`' result: the rows whose text matched, each with its dataset (a link), row and
// column, and a snippet with the matched words marked.
import type { SearchHits as Hits } from "@aware/client";
import { AppLink } from "../lib/links";
import { Snippet } from "./Sources";

export function SearchHits({ hits }: { hits: Hits }) {
  return (
    <div className="search-hits">
      <p className="muted">{hits.hits.length} hit(s) · {hits.mode} search{hits.note ? ` · ${hits.note}` : ""}</p>
      <ol>
        {hits.hits.map((h) => (
          <li key={`${h.datasetId}:${h.rowId}`}>
            <AppLink to={`/datasets/${h.datasetId}`}>{h.tableName}</AppLink>
            <span className="muted"> row {String(h.rowId)} · {h.column}{h.sameTextRows ? ` · +${h.sameTextRows} rows with the same text` : ""}</span>
            <p className="snippet"><Snippet html={h.snippet} /></p>
          </li>
        ))}
      </ol>
    </div>
  );
}
