// The one client of the app, bound to the server that served the page (or `?server=URL`), with
// every action audited as coming from the web.
import { createAwareClient, ConnectError, DatasetStatus, SearchIndexState, type Dataset, type SearchIndex } from "@aware/client";

const params = new URLSearchParams(window.location.search);
export const aware = createAwareClient({
  baseUrl: params.get("server") ?? window.location.origin,
  token: params.get("token") ?? undefined,
  source: "web",
});

/** What each tool shows while it runs ("Reading rows…") and its title ("Import files"), as the
 *  server's tool registry words them (GetCapabilities); read once, when the app starts, which also
 *  tells the caller's role ("" when the server could not be asked). */
const activities = new Map<string, string>();
const titles = new Map<string, string>();
export async function loadCapabilities(): Promise<{ role: string }> {
  try {
    const caps = await aware.chat.getCapabilities({});
    caps.tools.forEach((t) => { activities.set(t.name, t.activity); titles.set(t.name, t.title); });
    return { role: caps.role };
  } catch {
    return { role: "" }; // without them a running tool shows its title and a grant its tool's name: the app still works
  }
}
export function activityOf(tool: string): string | undefined {
  return activities.get(tool) || undefined;
}
export function toolTitle(tool: string): string {
  return titles.get(tool) || tool;
}

/** The confirmations this page's assistant panel shows as cards: the approvals list leaves them
 *  to it. */
export const shownInAssistant = new Set<string>();

/** A failed call's message for people. The server starts it with its error code
 *  ("NOT_FOUND: …", for grpcurl users); the page says the sentence only. */
export function errorText(e: unknown): string {
  return ConnectError.from(e).rawMessage;
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

export function statusText(d: Dataset): string {
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
