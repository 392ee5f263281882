// A dataset's page: its names and description, status, size and search index (followed while it
// is being built), rename and describe, where it came from (a saved result's lineage, or the file
// it was imported from with "Refresh from file" for admins), the schema, a preview and every
// statistic — or, for a knowledge document, its passages; a file that failed says why. Delete
// asks first. New content (a refresh, from here or from the assistant) has a new version: the
// preview and statistics are read again for it.
import { useState } from "react";
import { useParams } from "react-router";
import { DatasetFormat, DatasetStatus, type Dataset } from "@aware/client";
import { errorText, isNotFound, searchText, statusText } from "../../lib/api";
import { count, formatBytes } from "../../lib/format";
import { AppLink, useOpen } from "../../lib/links";
import { usePageTitle } from "../../lib/pageTitle";
import { useRole } from "../../lib/queries/capabilities";
import { useDataset, useDatasets, useDeleteDataset, usePreview, useStatistics } from "../../lib/queries/datasets";
import { ResultTable } from "../../results/ResultTable";
import { documentKind, isDocument, passagesText } from "../../results/Sources";
import { StatisticsTable } from "../../results/StatisticsTable";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { EditDataset } from "./EditDataset";
import { ImportedFrom } from "./ImportedFrom";
import { SavedFrom } from "./SavedFrom";
import { Schema } from "./Schema";

export function DatasetPage() {
  const { id = "" } = useParams();
  // Another dataset is another page: nothing of this one's (an open form) carries over.
  return <DatasetView key={id} id={id} />;
}

function DatasetView({ id }: { id: string }) {
  const { data: dataset, error } = useDataset(id);
  // Gone — deleted here, by the assistant or elsewhere — even if a copy read before is cached.
  const gone = error !== null && isNotFound(error);
  usePageTitle(gone ? "Dataset not found" : (dataset?.name ?? "Dataset"));
  if (gone) {
    return (
      <section aria-labelledby="dataset-title">
        <h1 id="dataset-title">Dataset not found</h1>
        <p className="error">This dataset does not exist (any more). <AppLink to="/datasets">Back to datasets</AppLink></p>
      </section>
    );
  }
  if (!dataset) {
    if (error) return <p className="error" role="alert">Cannot load this dataset: {errorText(error)}</p>;
    return <p className="muted">Loading…</p>;
  }
  return <DatasetDetail dataset={dataset} />;
}

function DatasetDetail({ dataset }: { dataset: Dataset }) {
  const canRefresh = useRole() === "admin";
  const datasets = useDatasets().data;
  const open = useOpen();
  const remove = useDeleteDataset();
  const [editing, setEditing] = useState(false);
  const ready = dataset.status === DatasetStatus.READY;
  // A knowledge document is shown as its passages: it has no schema or statistics to speak of.
  const isDoc = isDocument(dataset.format);
  const preview = usePreview(dataset.id, dataset.versionHash, ready);
  const stats = useStatistics(dataset.id, dataset.versionHash, ready && !isDoc);
  const index = dataset.searchIndex;
  return (
    <section aria-labelledby="dataset-title">
      <h1 id="dataset-title">{dataset.name}</h1>
      {dataset.description && <p className="description">{dataset.description}</p>}
      <p className="muted">
        table <code>{dataset.tableName}</code> · {statusText(dataset)}
        {isDoc && <> · {documentKind(dataset.format)}</>}
        {ready && <> · {isDoc ? passagesText(dataset.rowCount) : `${count(dataset.rowCount)} rows`}</>}
        {dataset.format === DatasetFormat.DERIVED ? <> · saved from a query</> : <> · {formatBytes(dataset.sizeBytes)}</>}
        {ready && index ? <> · <span className="search-state">search: {searchText(index)}</span></> : null}
      </p>
      <p className="dataset-actions">
        {ready && !editing && <button type="button" onClick={() => setEditing(true)}>Rename or describe</button>}
        <ConfirmDialog
          trigger={<button type="button" className="danger">Delete dataset</button>}
          title={`Delete ${dataset.tableName}?`}
          description={`${ready ? `Its ${count(dataset.rowCount)} rows` : "The dataset"} and everything computed only from it go for good. This cannot be undone.`}
          action="Delete dataset"
          onConfirm={async () => {
            await remove.mutateAsync(dataset.id);
            open("/datasets");
          }}
        />
      </p>
      <ImportedFrom dataset={dataset} canRefresh={canRefresh && ready} />
      {editing && <EditDataset dataset={dataset} onDone={() => setEditing(false)} />}
      {dataset.status === DatasetStatus.ERROR && (
        <div className="load-failed" role="alert">
          <strong>This file could not be loaded.</strong>
          <p>{dataset.error || "The server recorded no reason."}</p>
          <p className="muted">It has no schema, preview or statistics. Fix the file and upload it again, or delete this entry.</p>
        </div>
      )}
      {dataset.status === DatasetStatus.PROCESSING && <p className="muted" role="status">Still loading the file… this page updates when it is ready.</p>}
      {ready && (
        <>
          {dataset.lineage && datasets && <SavedFrom lineage={dataset.lineage} datasets={datasets} />}
          {isDoc ? (
            <p className="muted">The assistant searches this document’s passages and cites them by their chunk id (<code>{dataset.tableName}::NNN</code>).</p>
          ) : (
            <>
              <h2>Schema</h2>
              <Schema dataset={dataset} />
            </>
          )}
          <h2>{isDoc ? "Passages" : "Preview"}</h2>
          {preview.data ? (
            <ResultTable table={preview.data} caption={dataset.tableName} raw />
          ) : preview.isError ? (
            <p className="error">{errorText(preview.error)}</p>
          ) : preview.data === null ? null : (
            <p className="muted">Loading…</p>
          )}
          {!isDoc && (
            <>
              <h2>Statistics</h2>
              {stats.data ? <StatisticsTable stats={stats.data} /> : stats.isError ? <p className="error">{errorText(stats.error)}</p> : stats.data === null ? null : <p className="muted">Loading…</p>}
            </>
          )}
        </>
      )}
    </section>
  );
}
