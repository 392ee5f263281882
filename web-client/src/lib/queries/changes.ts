// What a run changes in the server state the app shows. Runs stream (they are not queries), but
// their tools change data: each event says which queries it made stale, and those are read again.
import type { QueryClient, QueryKey } from "@tanstack/react-query";
import type { ServerEvent, ToolResult } from "@aware/client";
import { aware, HEARTBEAT_TIMEOUT_MS } from "../api";
import { keys } from "../queryKeys";

function changedByResult(r: ToolResult): QueryKey[] {
  switch (r.rich.case) {
    // Verified queries that read a deleted dataset go with it; the answers that read it are stale.
    case "deletedDataset":
      return [keys.datasets.all, keys.savedQueries, keys.runs.details];
    case "importReport":
      return [keys.datasets.all];
    // A rename rewrites the verified queries that read the table; a save adds a dataset; a
    // refresh makes the answers that read it stale.
    case "datasetChange":
      return [keys.datasets.all, keys.savedQueries, keys.runs.details];
    case "savedQueryChange":
      return [keys.savedQueries];
    case "accountChange":
      return [keys.admin.all];
    default:
      return [];
  }
}

/** The queries one event of a run makes stale. */
export function changedBy(e: ServerEvent): QueryKey[] {
  const p = e.payload;
  switch (p.case) {
    // A remembered answer to a question back is in the dataset's description once the
    // question's own result is (its ClarificationResolved comes before the rule is kept).
    case "toolResult":
      return p.value.toolName === "ask_user" && !p.value.isError ? [keys.datasets.all] : changedByResult(p.value);
    case "memorySaved":
    case "memoryForgotten":
      return [keys.memories];
    // A confirmation asked or answered changes what waits for approval; "Allow for 5 minutes"
    // adds a grant.
    case "confirmationRequired":
      return [keys.pendingConfirmations];
    case "confirmationResolved":
      return p.value.grantId ? [keys.pendingConfirmations, keys.grants] : [keys.pendingConfirmations];
    // A new run for the runs list; a thread's last activity (and a new thread's title).
    case "runCompleted":
      return [keys.runs.all, keys.threads.all];
    default:
      return [];
  }
}

/** Invalidates what `e` changed. */
export function invalidateAfter(client: QueryClient, e: ServerEvent) {
  for (const queryKey of changedBy(e)) void client.invalidateQueries({ queryKey });
}

/**
 * Follows a run this page does not stream (an MCP client's, another tab's) to its end, so what
 * its tools change is read again once they changed it — an approval only lets the tool start.
 * Without its events (the stream refused), everything a tool can change is read again.
 */
export async function invalidateAsRunGoes(client: QueryClient, runId: string, signal: AbortSignal) {
  try {
    for await (const item of aware.runStream(runId, { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, signal })) {
      if (item.kind === "event") invalidateAfter(client, item.event);
    }
  } catch {
    if (signal.aborted) return;
    for (const queryKey of [keys.datasets.all, keys.savedQueries, keys.admin.all, keys.runs.all]) void client.invalidateQueries({ queryKey });
  }
}
