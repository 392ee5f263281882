// The one client of the app, bound to the server that served the page (or `?server=URL`), with
// every action audited as coming from the web.
import {
  createAwareClient,
  ConnectError,
  DatasetStatus,
  SearchIndexState,
  type Dataset,
  type SearchIndex,
  type Value,
} from "@aware/client";

const params = new URLSearchParams(window.location.search);
export const aware = createAwareClient({
  baseUrl: params.get("server") ?? window.location.origin,
  token: params.get("token") ?? undefined,
  source: "web",
});

export function errorText(e: unknown): string {
  return ConnectError.from(e).rawMessage;
}

export function formatBytes(n: bigint | number): string {
  let x = Number(n);
  const units = ["B", "KiB", "MiB", "GiB"];
  let u = 0;
  while (x >= 1024 && u < units.length - 1) {
    x /= 1024;
    u++;
  }
  return u === 0 ? `${x} B` : `${x.toFixed(1)} ${units[u]}`;
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
      return "error";
    default:
      return "unknown";
  }
}

/** A cell as text, typed: numbers grouped, dates as dates, NULL marked. */
export function cellText(v: Value | undefined): string {
  const k = v?.kind;
  switch (k?.case) {
    case undefined:
    case "nullValue":
      return "NULL";
    case "boolValue":
      return k.value ? "true" : "false";
    case "intValue":
      return k.value.toLocaleString("en-US");
    case "doubleValue":
      return k.value.toLocaleString("en-US", { maximumFractionDigits: 4 });
    case "decimalValue":
      return Number.isFinite(Number(k.value)) ? Number(k.value).toLocaleString("en-US", { maximumFractionDigits: 4 }) : k.value;
    case "dateValue":
      return new Date(k.value * 86_400_000).toISOString().slice(0, 10);
    case "timestampValue":
      return new Date(Number(k.value.seconds) * 1000 + k.value.nanos / 1e6).toISOString().replace("T", " ").slice(0, 19);
    case "timeValue": {
      const s = Number(k.value / 1_000_000n);
      return `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
    }
    case "bytesValue":
      return `<${k.value.length} bytes>`;
    default:
      return k ? String(k.value) : "";
  }
}

/** A cell as a number, when it is one (for charts and right alignment). */
export function cellNumber(v: Value | undefined): number | undefined {
  const k = v?.kind;
  if (k?.case === "intValue") return Number(k.value);
  if (k?.case === "doubleValue") return k.value;
  if (k?.case === "decimalValue") return Number(k.value);
  return undefined;
}

/** A cell for CSV export: raw, quoted when needed. */
export function csvCell(v: Value | undefined): string {
  const k = v?.kind;
  const raw = k === undefined || k.case === "nullValue" ? "" : k.case === "intValue" || k.case === "doubleValue" || k.case === "decimalValue" ? String(k.value) : cellText(v);
  return csvText(raw);
}

export function csvText(raw: string): string {
  return /[",\n\r]/.test(raw) ? `"${raw.replaceAll('"', '""')}"` : raw;
}
