// A chart of any result table, as the person picks it: its kind, the column across and the
// number drawn. The server's chart seeds the pick when it made one; otherwise the first text or
// date column goes across and the first number up. The spec is built here from the table's rows
// (Vega-Lite, the same shape the server writes), so a table with no server chart — a preview, a
// rerun's new result — gets one too.
import { ChartKind, type Chart, type Table, type Value } from "@aware/client";
import { cellNumber, cellText, columnUnit } from "../lib/format";

export interface Pick {
  kind: ChartKind;
  /** Column indexes. */
  x: number;
  y: number;
}

/** The most rows a picked chart draws (a longer table is charted over its first rows). */
export const MAX_CHART_ROWS = 2000;

const isTime = (v: Value | undefined) => v?.kind.case === "dateValue" || v?.kind.case === "timestampValue";

/** Whether a column is dates or timestamps (nulls aside). */
function temporal(table: Table, col: number): boolean {
  const seen = table.rows.map((r) => r.values[col]).filter((v) => v && v.kind.case !== "nullValue");
  return seen.length > 0 && seen.every(isTime);
}

/** Whether `table` can be charted: two rows or more, and a column of numbers. */
export function chartable(table: Table, numeric: boolean[]): boolean {
  return table.rows.length >= 2 && numeric.some(Boolean);
}

/** The pick a table starts from: the server's chart when there is one, else a sensible first. */
export function seedPick(table: Table, numeric: boolean[], chart?: Chart): Pick | undefined {
  const index = (name: string | undefined) => table.columns.findIndex((c) => c.name === name);
  if (chart) {
    const [x, y] = [index(chart.x), index(chart.y[0])];
    if (x >= 0 && y >= 0) return { kind: chart.kind === ChartKind.UNSPECIFIED ? ChartKind.BAR : chart.kind, x, y };
  }
  // A number worth drawing: not an id or a year (their digits name things, they do not measure).
  const measures = numeric.map((n, i) => n && !columnUnit(table.columns[i].name).plain);
  const y = measures.some(Boolean) ? measures.findIndex(Boolean) : numeric.findIndex(Boolean);
  if (y < 0) return undefined;
  const across = table.columns.findIndex((_, i) => !numeric[i]);
  const x = across >= 0 ? across : numeric.findIndex((n, i) => n && i !== y);
  if (x < 0) return undefined;
  const kind = numeric[x] ? ChartKind.SCATTER : temporal(table, x) ? ChartKind.LINE : ChartKind.BAR;
  return { kind, x, y };
}

/** A column name as a Vega-Lite field: `.` `[` `]` `\` would otherwise read as nested access. */
const field = (name: string) => name.replace(/[.[\]\\]/g, (c) => `\\${c}`);

/** A cell as chart data: numbers as numbers (non-finite as a gap), dates as ISO text, else text. */
function datum(v: Value | undefined): unknown {
  const n = cellNumber(v);
  if (n !== undefined) return Number.isFinite(n) ? n : null;
  if (v?.kind.case === "timestampValue") return new Date(Number(v.kind.value.seconds) * 1000 + v.kind.value.nanos / 1e6).toISOString();
  if (v?.kind.case === "nullValue" || v === undefined) return null;
  return cellText(v);
}

/** The chart of `table` that `pick` describes, with its Vega-Lite spec built from the rows. Bars
 *  and lines over a column whose values repeat (a dataset's rows, not a grouped result) draw each
 *  value's average, and say so ("average price_eur by neighbourhood"); points draw every row. */
export function pickedChart(table: Table, numeric: boolean[], pick: Pick): Chart {
  const xName = table.columns[pick.x].name;
  let yName = table.columns[pick.y].name;
  let values = table.rows.slice(0, MAX_CHART_ROWS).map((r) => ({ [xName]: datum(r.values[pick.x]), [yName]: datum(r.values[pick.y]) }));
  const keys = values.map((v) => JSON.stringify(v[xName]));
  if (pick.kind !== ChartKind.SCATTER && new Set(keys).size < keys.length) {
    const sums = new Map<string, { x: unknown; sum: number; n: number }>();
    for (const [i, v] of values.entries()) {
      const y = v[yName];
      const at = sums.get(keys[i]) ?? { x: v[xName], sum: 0, n: 0 };
      if (typeof y === "number") [at.sum, at.n] = [at.sum + y, at.n + 1];
      sums.set(keys[i], at);
    }
    const averaged = `average ${yName}`;
    values = [...sums.values()].map((a) => ({ [xName]: a.x, [averaged]: a.n > 0 ? a.sum / a.n : null }));
    yName = averaged;
  }
  const xType = numeric[pick.x] ? "quantitative" : temporal(table, pick.x) ? "temporal" : "nominal";
  const mark = pick.kind === ChartKind.LINE ? "line" : pick.kind === ChartKind.SCATTER ? "point" : "bar";
  const x: Record<string, unknown> = { field: field(xName), type: xType, title: xName };
  if (mark === "bar" && xType === "nominal") x.sort = "-y";
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    width: "container",
    height: 260,
    data: { values },
    mark: { type: mark, tooltip: true, ...(mark === "line" ? { point: values.length <= 60 } : {}) },
    encoding: {
      x,
      y: { field: field(yName), type: "quantitative", title: yName, ...(mark === "point" ? { scale: { zero: false } } : {}) },
      tooltip: [
        { field: field(xName), type: xType },
        { field: field(yName), type: "quantitative" },
      ],
    },
  };
  return { $typeName: "aware.v1.Chart", kind: pick.kind, x: xName, y: [yName], color: "", vegaLiteJson: JSON.stringify(spec) };
}
