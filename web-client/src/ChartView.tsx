// The chart the server picked for a table result, drawn from its Vega-Lite spec with vega-embed:
// SVG, coloured from the app's CSS variables, with a spoken description and downloads (PNG, SVG
// and the spec itself, for people who want the chart elsewhere). Which chart a table gets is the
// server's call; this only draws it.
//
// Expressions are run by vega-interpreter rather than compiled with `new Function`, so the page
// can forbid eval in its Content-Security-Policy; vega-embed's and vega-tooltip's injected
// <style> elements are turned off for the same reason (their look is in styles.css).
import { useEffect, useMemo, useRef, useState } from "react";
import embed, { type Config, type Result, type VisualizationSpec } from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";
import { ChartKind, type Chart } from "@aware/client";
import { columnUnit, formatNumber } from "./format";

type Row = Record<string, unknown>;
interface Spec {
  data?: { values?: Row[] };
  encoding?: { x?: { sort?: unknown } };
}

/** "avg_price_eur by neighbourhood": what the chart plots, as its caption says it. */
function title(chart: Chart): string {
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
function description(chart: Chart, spec: Spec): string {
  const rows = spec.data?.values ?? [];
  const what = title(chart);
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

/** The chart's colours and font from the page's CSS variables (read when it is drawn), so it
 * reads like the rest of the app in the light and the dark theme alike. A variable holds a
 * `light-dark()` pair, so each is resolved to the colour in force by a probe element. */
function theme(el: HTMLElement): Config {
  const css = getComputedStyle(el);
  const probe = document.createElement("span");
  el.appendChild(probe);
  const v = (name: string, fallback: string) => {
    probe.style.color = `var(${name}, ${fallback})`;
    return getComputedStyle(probe).color || fallback;
  };
  const text = v("--text", "#1d2330");
  const muted = v("--muted", "#69718a");
  const line = v("--line", "#dde1ea");
  const font = css.fontFamily;
  const config: Config = {
    background: v("--surface", "#ffffff"),
    font,
    view: { stroke: null },
    mark: { color: v("--accent", "#3558d6") },
    axis: {
      labelColor: muted,
      titleColor: text,
      domainColor: line,
      tickColor: line,
      gridColor: line,
      labelFont: font,
      titleFont: font,
      labelFontSize: 11,
      titleFontSize: 12,
      titleFontWeight: 600,
    },
    legend: { labelColor: muted, titleColor: text, labelFont: font, titleFont: font },
  };
  probe.remove();
  return config;
}

/** Saves `href` (a data: or blob: URL) as `name`, as a link with `download` would. */
function save(href: string, name: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name.replace(/[^\w.-]+/g, "_");
  a.click();
  if (href.startsWith("blob:")) setTimeout(() => URL.revokeObjectURL(href), 1000);
}

function parse(json: string): Spec | undefined {
  try {
    return JSON.parse(json) as Spec;
  } catch {
    return undefined;
  }
}

export function ChartView({ chart }: { chart: Chart }) {
  const host = useRef<HTMLDivElement>(null);
  // Set once the chart is drawn: the downloads render from it.
  const [view, setView] = useState<Result["view"] | null>(null);
  const [failed, setFailed] = useState(false);
  const spec = useMemo(() => parse(chart.vegaLiteJson), [chart.vegaLiteJson]);

  useEffect(() => {
    const el = host.current;
    if (!el || !spec) return;
    let result: Result | undefined;
    let gone = false;
    setFailed(false);
    // A copy: vega-lite may annotate the object it compiles, and the spec download is the server's own.
    embed(el, structuredClone(spec) as VisualizationSpec, {
      renderer: "svg",
      actions: false,
      defaultStyle: false,
      ast: true,
      expr: expressionInterpreter,
      tooltip: { disableDefaultStyle: true },
      config: theme(el),
    }).then(
      (r) => {
        if (gone) return r.finalize();
        result = r;
        setView(r.view);
      },
      (e: unknown) => {
        if (gone) return;
        console.warn("the chart could not be drawn", e);
        setFailed(true);
      },
    );
    return () => {
      gone = true;
      setView(null);
      result?.finalize();
    };
  }, [spec]);

  if (!spec) return null;
  const name = title(chart);
  const download = async (type: "png" | "svg") => {
    if (!view) return;
    // PNG at twice the size on screen, so it stays sharp on slides and high-density screens.
    save(await view.toImageURL(type, type === "png" ? 2 : 1), `${name}.${type}`);
  };
  const downloadSpec = () => {
    const text = JSON.stringify(spec, null, 2);
    save(URL.createObjectURL(new Blob([text], { type: "application/json" })), `${name}.vl.json`);
  };
  return (
    <figure className="chart-figure">
      <figcaption>{name}</figcaption>
      {failed && <p className="muted">This chart could not be drawn; the table has its numbers.</p>}
      <div className="chart" role="img" aria-label={description(chart, spec)} hidden={failed}>
        <div ref={host} />
      </div>
      <div className="chart-actions">
        <button type="button" disabled={!view} onClick={() => download("png")}>Download PNG</button>
        <button type="button" disabled={!view} onClick={() => download("svg")}>Download SVG</button>
        <button type="button" onClick={downloadSpec} title="The Vega-Lite spec, with the data, to open the chart in other tools">Download spec</button>
      </div>
    </figure>
  );
}
