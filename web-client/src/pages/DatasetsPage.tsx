// The Datasets page: upload, the datasets — tables and knowledge documents — with their status
// (a file that failed says why), size and counts, and the verified queries.
import { DatasetFormat, DatasetStatus } from "@aware/client";
import { errorText, statusText } from "../lib/api";
import { count, formatBytes } from "../lib/format";
import { AppLink } from "../lib/links";
import { usePageTitle } from "../lib/pageTitle";
import { useDatasets } from "../lib/queries/datasets";
import { ScrollBox } from "../results/ScrollBox";
import { documentKind, isDocument, passagesText } from "../results/Sources";
import { SavedQueries } from "./dataset/SavedQueries";
import { UploadDropzone } from "./dataset/UploadDropzone";

export function DatasetsPage() {
  usePageTitle("Datasets");
  const { data: datasets, error } = useDatasets();
  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      <UploadDropzone />
      {error && !datasets && <p className="error" role="alert">Cannot load datasets: {errorText(error)}</p>}
      {!datasets && !error && <p className="muted">Loading…</p>}
      {datasets?.length === 0 && <p className="empty">No datasets yet — upload a file to start.</p>}
      {datasets && datasets.length > 0 && (
        <ScrollBox label="Datasets" className="page-table">
          <table className="datasets">
            <thead>
              <tr><th>Name</th><th>Table</th><th>Status</th><th className="num">Rows</th><th className="num">Columns</th><th className="num">Size</th></tr>
            </thead>
            <tbody>
              {datasets.map((d) => (
                <tr key={d.id}>
                  <td>
                    <AppLink to={`/datasets/${d.id}`}>{d.name}</AppLink>
                    {documentKind(d.format) && <span className="badge document-kind">{documentKind(d.format)}</span>}
                  </td>
                  <td><code>{d.tableName}</code></td>
                  <td className={`status ${statusText(d)}`}>
                    {statusText(d)}
                    {d.status === DatasetStatus.ERROR && d.error && <span className="reason">{d.error}</span>}
                  </td>
                  <td className="num">{d.status !== DatasetStatus.READY ? "—" : isDocument(d.format) ? passagesText(d.rowCount) : count(d.rowCount)}</td>
                  <td className="num">{d.status === DatasetStatus.READY && !isDocument(d.format) ? d.columnCount : "—"}</td>
                  <td className="num">{d.format === DatasetFormat.DERIVED ? <span title="saved from a query">—</span> : formatBytes(d.sizeBytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      {datasets && <SavedQueries />}
    </section>
  );
}
