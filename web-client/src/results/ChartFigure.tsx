// The chart the server picked for a table result: its title, the drawing (Vega, loaded with the
// first chart rather than with the page: it is most of the app's code by size), a spoken
// description, and a Download menu (PNG, SVG, and the Vega-Lite spec itself, for people who want
// the chart elsewhere). Which chart a table gets is the server's call; this only shows it.
//
// The drawing has a box of fixed height from the start — while Vega loads and draws it too — so
// a chart arriving in a streamed answer moves nothing under it.
import { lazy, Suspense, useCallback, useMemo, useState } from "react";
import type { Chart } from "@aware/client";
import { Menu, MenuItem } from "../ui/Menu";
import { chartDescription, chartTitle, parseSpec } from "./chartSpec";
import type { ChartHandle } from "./VegaChart";

const VegaChart = lazy(() => import("./VegaChart").then((m) => ({ default: m.VegaChart })));

/** Saves `href` (a data: or blob: URL) as `name`, as a link with `download` would. */
function save(href: string, name: string) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name.replace(/[^\w.-]+/g, "_");
  a.click();
  if (href.startsWith("blob:")) setTimeout(() => URL.revokeObjectURL(href), 1000);
}

export function ChartFigure({ chart }: { chart: Chart }) {
  const spec = useMemo(() => parseSpec(chart.vegaLiteJson), [chart.vegaLiteJson]);
  // Set once the chart is drawn: the image downloads render from it.
  const [drawn, setDrawn] = useState<ChartHandle | null>(null);
  const [failed, setFailed] = useState(false);
  const fail = useCallback(() => setFailed(true), []);
  if (!spec) return null;
  const name = chartTitle(chart);
  const download = async (type: "png" | "svg") => {
    if (!drawn) return;
    // PNG at twice the size on screen, so it stays sharp on slides and high-density screens.
    save(await drawn.imageUrl(type, type === "png" ? 2 : 1), `${name}.${type}`);
  };
  const downloadSpec = () => {
    const text = JSON.stringify(spec, null, 2);
    save(URL.createObjectURL(new Blob([text], { type: "application/json" })), `${name}.vl.json`);
  };
  return (
    <figure className="chart-figure">
      <div className="chart-head">
        <figcaption>{name}</figcaption>
        <Menu label="Download">
          <MenuItem disabled={!drawn} onSelect={() => void download("png")}>PNG image</MenuItem>
          <MenuItem disabled={!drawn} onSelect={() => void download("svg")}>SVG image</MenuItem>
          <MenuItem onSelect={downloadSpec} hint="the data and the chart, for other tools">Vega-Lite spec</MenuItem>
        </Menu>
      </div>
      <div className="chart" role="img" aria-label={chartDescription(chart, spec)}>
        {failed ? (
          <p className="muted">This chart could not be drawn; the table has its numbers.</p>
        ) : (
          <Suspense fallback={<p className="muted chart-pending">Drawing the chart…</p>}>
            <VegaChart spec={spec} onDrawn={setDrawn} onFailed={fail} />
          </Suspense>
        )}
      </div>
    </figure>
  );
}
