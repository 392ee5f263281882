// Where a dataset saved from a query came from: the datasets it read (at which version, and
// whether their data changed since), the SQL, and the run that computed it.
import type { Dataset, Lineage } from "@aware/client";
import { AppLink } from "../../lib/links";
import { SqlBlock } from "../../results/SqlBlock";

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
              {now ? <AppLink to={`/datasets/${s.datasetId}`}>{now.tableName}</AppLink> : <>{s.tableName} <span className="muted">(deleted since)</span></>}
              {s.versionHash && <span className="muted"> · version {s.versionHash.slice(0, 12)}</span>}
              {now && s.versionHash && now.versionHash !== s.versionHash && <span className="muted"> · its data has changed since</span>}
            </li>
          );
        })}
      </ul>
      <SqlBlock sql={lineage.sql} label="The query" />
      {lineage.runId && <p><AppLink to={`/runs/${lineage.runId}`}>The run that computed it</AppLink></p>}
    </section>
  );
}
