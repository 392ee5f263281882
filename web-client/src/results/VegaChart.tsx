// A chart drawn from the server's Vega-Lite spec with vega-embed: SVG, coloured from the app's
// design tokens, in the box its figure (`ChartFigure.tsx`) keeps for it.
//
// Expressions are run by vega-interpreter rather than compiled with `new Function`, so the page
// can forbid eval in its Content-Security-Policy; vega-embed's and vega-tooltip's injected
// <style> elements are turned off for the same reason (their look is in the stylesheets).
import { useEffect, useRef } from "react";
import embed, { type Config, type Result, type VisualizationSpec } from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";
import type { Spec } from "./chartSpec";

/** A drawn chart, for its downloads. */
export interface ChartHandle {
  imageUrl(type: "png" | "svg", scale: number): Promise<string>;
}

/** The chart's colours and font from the page's design tokens (read when it is drawn), so it
 * reads like the rest of the app in the light and the dark theme alike. A token holds a
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

export function VegaChart({ spec, onDrawn, onFailed }: { spec: Spec; onDrawn: (chart: ChartHandle | null) => void; onFailed: () => void }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    let result: Result | undefined;
    let gone = false;
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
        onDrawn({ imageUrl: (type, scale) => r.view.toImageURL(type, scale) });
      },
      (e: unknown) => {
        if (gone) return;
        console.warn("the chart could not be drawn", e);
        onFailed();
      },
    );
    return () => {
      gone = true;
      onDrawn(null);
      result?.finalize();
    };
  }, [spec, onDrawn, onFailed]);
  return <div ref={host} className="chart-canvas" />;
}
