// A tool result's rich payload, as the person sees it: tables (with their chart), dataset lists,
// statistics, files, import reports, search hits, passages, what a write tool changed, and an
// external server's output as text. The model saw only the result's summary.
import type { ToolResult } from "@aware/client";
import { statusText } from "../lib/api";
import { formatBytes } from "../lib/format";
import { AppLink } from "../lib/links";
import { runStateText } from "../lib/outcome";
import { AccountChangeResult, DatasetChangeResult, SavedQueryChangeResult } from "../cards/Changes";
import { DatasetListResult } from "./DatasetListResult";
import { DirectoryListing } from "./DirectoryListing";
import { ExternalResult } from "./ExternalResult";
import { ImportReport } from "./ImportReport";
import { ResultTable } from "./ResultTable";
import { SearchHits } from "./SearchHits";
import { KnowledgeResult } from "./Sources";
import { StatisticsTable } from "./StatisticsTable";

export function RichResult({ result }: { result: ToolResult }) {
  const r = result.rich;
  switch (r.case) {
    case "table":
      return <ResultTable table={r.value} chart={result.chart} caption={result.toolName} expandable />;
    case "datasetList":
      return <DatasetListResult list={r.value} />;
    case "datasetDetail":
      return r.value.sample ? <ResultTable table={r.value.sample} chart={result.chart} caption={r.value.dataset?.tableName} expandable /> : null;
    case "statistics":
      return <StatisticsTable stats={r.value} />;
    case "external":
      return <ExternalResult serverId={r.value.serverId} tool={r.value.tool} json={r.value.resultJson} />;
    case "directoryListing":
      return <DirectoryListing listing={r.value} />;
    case "importReport":
      return <ImportReport report={r.value} />;
    case "searchHits":
      return <SearchHits hits={r.value} />;
    case "deletedDataset":
      return <p className="muted">Deleted the dataset {r.value.name} (table <code>{r.value.tableName}</code>, {formatBytes(r.value.sizeBytes)}); its data is gone.</p>;
    case "systemStatus":
      return <p className="muted">aware {r.value.version} · {r.value.mode} mode · model {r.value.modelProvider} · {r.value.datasetCount} datasets</p>;
    case "datasetChange":
      return <DatasetChangeResult change={r.value} />;
    case "savedQueryChange":
      return <SavedQueryChangeResult change={r.value} />;
    case "accountChange":
      return <AccountChangeResult change={r.value} />;
    case "knowledge":
      return <KnowledgeResult hits={r.value} />;
    case "run":
      return <p className="muted">Run <AppLink to={`/runs/${r.value.runId}`}>{r.value.question || r.value.runId}</AppLink> — {runStateText(r.value.status, r.value.outcome)}</p>;
    default:
      return result.isError && result.llmSummary ? <p className="error">{result.llmSummary}</p> : null;
  }
}
