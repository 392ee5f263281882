// The one client of the app, bound to the server that served the page (or `?server=URL` under
// Vite's dev server: a page aware serves may connect to its own origin only, by its CSP), with
// `?token=KEY` for a server that signs people in, with every action audited as coming from the
// web; and the words the pages use for what the server says.
import { createAwareClient, Code, ConnectError, DatasetStatus, SearchIndexState, type Dataset, type SearchIndex } from "@aware/client";

const params = new URLSearchParams(window.location.search);

export const aware = createAwareClient({
  baseUrl: params.get("server") ?? window.location.origin,
  token: params.get("token") ?? undefined,
  source: "web",
});

/** Silence on a run's stream after which it is presumed dead and reopened (`?hb=MS` for tests). */
export const HEARTBEAT_TIMEOUT_MS = Number(params.get("hb") ?? 15_000);

/** A failed call's message for people. The server starts it with its error code
 *  ("NOT_FOUND: …", for grpcurl users); the page says the sentence only. */
export function errorText(e: unknown): string {
  return ConnectError.from(e).rawMessage;
}

/** Whether the server said the thing asked for is not there (or not the caller's). */
export function isNotFound(e: unknown): boolean {
  return ConnectError.from(e).code === Code.NotFound;
}

/** Failures another try may fix: the connection, not the request. */
const PASSING = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Unknown, Code.Aborted, Code.ResourceExhausted]);
export function isRetryable(e: unknown): boolean {
  return PASSING.has(ConnectError.from(e).code);
}

/** A dataset's search index in a few words. */
export function searchText(s: SearchIndex): string {
  switch (s.state) {
    case SearchIndexState.READY:
      return `words and meaning (${s.textColumns.join(", ")})`;
    case SearchIndexState.LEXICAL:
      return `words (${s.textColumns.join(", ")})`;
    case SearchIndexState.EMBEDDING:
      return `words; meaning ${Math.floor((Number(s.vectorRows) * 100) / Math.max(1, Number(s.rows)))}% built`;
    case SearchIndexState.NO_TEXT:
      return "no text columns";
    case SearchIndexState.FAILED:
      return `failed (${s.error})`;
    default:
      return "indexing…";
  }
}

export function statusText(d: Pick<Dataset, "status">): string {
  switch (d.status) {
    case DatasetStatus.READY:
      return "ready";
    case DatasetStatus.PROCESSING:
      return "processing";
    case DatasetStatus.ERROR:
      return "failed";
    default:
      return "unknown";
  }
}
