// How values read on screen and in exported CSV: numbers rounded and grouped by their size, money
// in its currency when the column's name says so (`price_eur`, `avg(price_eur)`), non-finite
// doubles as NaN / ∞ / −∞, and CSV cells that a spreadsheet would run as a formula neutralised.
// Pure functions over the generated types only (no React, no client), so the browser suite can
// check them in Node too.
import type { Value } from "@aware/client";

/** What a column's name says about its numbers. */
export interface Unit {
  /** ISO 4217 code, from a `_eur`-style suffix. */
  currency?: string;
  /** Values are percentages already (`_pct`, `_percent`). */
  percent?: boolean;
  /** Years and identifiers: digits as they are, no thousands separators ("2024", not "2,024"). */
  plain?: boolean;
  /** Fractions of a whole (`share`, `…_share`: 0.349) shown as percentages (34.9%), as answers say them. */
  fraction?: boolean;
  /** A time bucket (a column named `month`, `quarter`, `year`): its dates shown as the period
   *  ("January 2024", "Q1 2024"), as answers say them, not as midnight timestamps. */
  period?: "month" | "quarter" | "year";
}

const CURRENCY_SUFFIX = /(?:^|_)(eur|usd|gbp|chf|jpy)\)?$/;
const PERCENT_SUFFIX = /(?:^|_)(pct|percent)\)?$/;
const FRACTION_SUFFIX = /(?:^|_)share\)?$/;
const PLAIN_SUFFIX = /(?:^|_)(year|id)\)?$/;

export function columnUnit(name: string): Unit {
  const n = name.toLowerCase();
  if (n === "month" || n === "quarter" || n === "year") return { period: n, plain: true };
  const currency = CURRENCY_SUFFIX.exec(n);
  if (currency) return { currency: currency[1].toUpperCase() };
  if (PERCENT_SUFFIX.test(n)) return { percent: true };
  if (FRACTION_SUFFIX.test(n)) return { fraction: true };
  if (PLAIN_SUFFIX.test(n)) return { plain: true };
  return {};
}

/** NaN, ∞ and −∞ as people write them; undefined for finite numbers. */
function nonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "∞";
  if (x === -Infinity) return "−∞";
  return undefined;
}

/**
 * A number for reading: whole above 1,000, two decimals above 1, three significant digits
 * below; money in its currency (whole units above 1,000, cents below). The exact value is what
 * [`exactText`] gives (tooltips, CSV).
 */
export function formatNumber(x: number, unit: Unit = {}): string {
  const special = nonFinite(x);
  if (special !== undefined) return special;
  if (unit.fraction) {
    const p = x * 100;
    return `${p.toLocaleString("en-US", { maximumFractionDigits: p !== 0 && Math.abs(p) < 1 ? 2 : 1 })}%`;
  }
  if (unit.plain && Number.isInteger(x)) return String(x);
  const abs = Math.abs(x);
  if (unit.currency) {
    const cents = abs < 1000 && !Number.isInteger(x);
    return x.toLocaleString("en-US", {
      style: "currency",
      currency: unit.currency,
      minimumFractionDigits: cents ? 2 : 0,
      maximumFractionDigits: cents ? 2 : 0,
    });
  }
  const options: Intl.NumberFormatOptions =
    abs >= 1000 || Number.isInteger(x) ? { maximumFractionDigits: 0 } : abs >= 1 ? { maximumFractionDigits: 2 } : { maximumSignificantDigits: 3 };
  const s = x.toLocaleString("en-US", options);
  return unit.percent ? `${s}%` : s;
}

function formatInt(x: bigint, unit: Unit): string {
  if (unit.plain) return x.toString();
  if (unit.currency) return x.toLocaleString("en-US", { style: "currency", currency: unit.currency, minimumFractionDigits: 0, maximumFractionDigits: 0 });
  const s = x.toLocaleString("en-US");
  return unit.percent ? `${s}%` : s;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** A date (UTC) as the period it starts, when it starts one; undefined otherwise. */
function periodText(d: Date, period: Unit["period"]): string | undefined {
  const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
  if (!period || day !== 1 || d.getTime() % 86_400_000 !== 0) return undefined;
  if (period === "month") return `${MONTHS[m]} ${y}`;
  if (period === "quarter" && m % 3 === 0) return `Q${m / 3 + 1} ${y}`;
  if (period === "year" && m === 0) return String(y);
  return undefined;
}

function dateText(days: number, unit: Unit = {}): string {
  const d = new Date(days * 86_400_000);
  return Number.isNaN(d.getTime()) ? `day ${days}` : (periodText(d, unit.period) ?? d.toISOString().slice(0, 10));
}

/** A cell as text, typed: numbers grouped and rounded (units from the column), dates as dates, NULL marked. */
export function cellText(v: Value | undefined, unit: Unit = {}): string {
  const k = v?.kind;
  switch (k?.case) {
    case undefined:
    case "nullValue":
      return "NULL";
    case "boolValue":
      return k.value ? "true" : "false";
    case "intValue":
      return formatInt(k.value, unit);
    case "doubleValue":
      return formatNumber(k.value, unit);
    case "decimalValue": {
      const x = Number(k.value);
      return Number.isFinite(x) ? formatNumber(x, unit) : k.value;
    }
    case "dateValue":
      return dateText(k.value, unit);
    case "timestampValue": {
      const d = new Date(Number(k.value.seconds) * 1000 + k.value.nanos / 1e6);
      if (Number.isNaN(d.getTime())) return `${k.value.seconds} s`;
      return periodText(d, unit.period) ?? d.toISOString().replace("T", " ").slice(0, 19);
    }
    case "timeValue": {
      const s = Number(k.value / 1_000_000n);
      return `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
    }
    case "bytesValue":
      return `<${k.value.length} bytes>`;
    case "stringValue":
    case "textValue":
      return k.value;
  }
}

/** The exact value of a number cell (for a tooltip when the shown one is rounded); "" otherwise. */
export function exactText(v: Value | undefined): string {
  const k = v?.kind;
  if (k?.case === "doubleValue") return nonFinite(k.value) ?? String(k.value);
  if (k?.case === "decimalValue" || k?.case === "intValue") return String(k.value);
  return "";
}

/** A cell as a number, when it is one (for charts and right alignment). */
export function cellNumber(v: Value | undefined): number | undefined {
  const k = v?.kind;
  if (k?.case === "intValue") return Number(k.value);
  if (k?.case === "doubleValue") return k.value;
  if (k?.case === "decimalValue") return Number(k.value);
  return undefined;
}

/**
 * Spreadsheets run a cell that starts with one of these as a formula (`=HYPERLINK(…)`,
 * `+cmd|…`, `@SUM(…)`, a tab or CR before one); some also take the full-width forms.
 */
const FORMULA_START = /^[=+\-@\t\r＝＋－＠]/;

/** A text field for CSV: a would-be formula gets a leading `'` (shown, never run), then RFC 4180 quoting. */
export function csvText(raw: string): string {
  const neutral = FORMULA_START.test(raw) ? `'${raw}` : raw;
  return neutral !== raw || /[",\n\r]/.test(neutral) ? `"${neutral.replaceAll('"', '""')}"` : neutral;
}

/** A cell for CSV export: numbers exact and unformatted (NaN, Infinity, -Infinity spelled out), text neutralised. */
export function csvCell(v: Value | undefined): string {
  const k = v?.kind;
  switch (k?.case) {
    case undefined:
    case "nullValue":
      return "";
    case "intValue":
    case "decimalValue":
      return String(k.value);
    case "doubleValue":
      return Number.isNaN(k.value) ? "NaN" : k.value === Infinity ? "Infinity" : k.value === -Infinity ? "-Infinity" : String(k.value);
    case "boolValue":
      return k.value ? "true" : "false";
    case "stringValue":
    case "textValue":
      return csvText(k.value);
    default:
      return csvText(cellText(v));
  }
}

/** A whole table as CSV (header first, CRLF line ends as RFC 4180 has them). */
export function tableCsv(columns: { name: string }[], rows: { values: Value[] }[]): string {
  const lines = [columns.map((c) => csvText(c.name)).join(",")];
  for (const r of rows) lines.push(r.values.map(csvCell).join(","));
  return lines.join("\r\n") + "\r\n";
}

/** A size as the server writes it on cards and in answers: "812 B", "37.9 KB", "3.4 MB" (1 KB = 1,024 bytes). */
export function formatBytes(n: bigint | number): string {
  let x = Number(n);
  const units = ["B", "KB", "MB", "GB"];
  let u = 0;
  while (x >= 1024 && u < units.length - 1) {
    x /= 1024;
    u++;
  }
  return u === 0 ? `${x} B` : `${x.toFixed(1)} ${units[u]}`;
}

/** A count with separators ("1,379"). */
export function count(n: bigint | number): string {
  return n.toLocaleString("en-US");
}

/** A moment in a list: "today, 14:05", or the date and time before today. */
export function whenText(d: Date, now = new Date()): string {
  if (d.toDateString() === now.toDateString()) return `today, ${d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" })}`;
  return d.toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
}
