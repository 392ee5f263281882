// What a chart the server picked says, without drawing it: its spec, its title ("avg_price_eur
// by neighbourhood") and what a screen reader says for it. Kept apart from the drawing, which
// loads Vega only when the first chart is shown.
import { ChartKind, type Chart } from "@aware/client";
import { columnUnit, formatNumber } from "../lib/format";

type Row = Record<string, unknown>;
export interface Spec {
  data?: { values?: Row[] };
  encoding?: { x?: { sort?: unknown } };
}

export function parseSpec(json: string): Spec | undefined {
  try {
    return JSON.parse(json) as Spec;
  } catch {
    return undefined;
  }
}

/** "avg_price_eur by neighbourhood": what the chart plots, as its caption says it. */
export function chartTitle(chart: Chart): string {
  const ys = chart.y.join(", ");
  switch (chart.kind) {
    case ChartKind.LINE:
      return `${ys} over ${chart.x}${chart.color ? ` by ${chart.color}` : ""}`;
    case ChartKind.SCATTER:
      return `${ys} against ${chart.x}`;
    default:
      return `${ys} by ${chart.x}`;
  }
}

/** What a screen reader says for the chart: its kind and title, and for bars every value in drawn order. */
export function chartDescription(chart: Chart, spec: Spec): string {
  const rows = spec.data?.values ?? [];
  const what = chartTitle(chart);
  switch (chart.kind) {
    case ChartKind.BAR: {
      const [y] = chart.y;
      const unit = columnUnit(y);
      const sort = spec.encoding?.x?.sort;
      const order = sort === "-y" ? -1 : sort === "y" ? 1 : 0;
      const bars = rows.map((r) => ({ label: String(r[chart.x] ?? ""), value: Number(r[y]) }));
      if (order) bars.sort((a, b) => order * (a.value - b.value));
      const spoken = bars.map((b) => `${b.label} ${Number.isFinite(b.value) ? formatNumber(b.value, unit) : "no value"}`).join(", ");
      return `Bar chart of ${what}${order === -1 ? ", largest first" : order === 1 ? ", smallest first" : ""}: ${spoken}`;
    }
    case ChartKind.LINE:
      return `Line chart of ${what}, ${rows.length} points`;
    case ChartKind.SCATTER:
      return `Scatter plot of ${what}, ${rows.length} points`;
    default:
      return `Chart of ${what}`;
  }
}
