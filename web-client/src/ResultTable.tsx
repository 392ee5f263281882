// A result table: typed formatting (money in its currency from the column name, rounded numbers
// with the exact value on hover), horizontal scrolling with a hint when columns are out of view,
// "Expand" to read a wide table in the whole window, formula-safe "Export CSV", and a titled,
// labelled bar chart (largest first) for grouped aggregates.
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Tooltip } from "chart.js";
import type { Table } from "@aware/client";
import { cellNumber, cellText, columnUnit, count, exactText, formatNumber, tableCsv, type Unit } from "./format";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

function isNumeric(t: Table, col: number): boolean {
  return t.rows.length > 0 && t.rows.every((r) => {
    const k = r.values[col]?.kind;
    return k?.case === "nullValue" || cellNumber(r.values[col]) !== undefined;
  });
}

/** "price_eur" → "price (EUR)": a column name with its unit spelled out, for chart axes. */
function label(name: string, unit: Unit): string {
  return unit.currency ? `${name} (${unit.currency})` : name;
}

export function ResultTable({ table, caption, expandable = false }: { table: Table; caption?: string; expandable?: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const numeric = table.columns.map((_, i) => isNumeric(table, i));
  const units = table.columns.map((c) => columnUnit(c.name));
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([tableCsv(table.columns, table.rows)], { type: "text/csv" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${caption ?? "result"}.csv`.replace(/[^\w.-]+/g, "_");
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const chartable = table.columns.length === 2 && !numeric[0] && numeric[1] && table.rows.length >= 2 && table.rows.length <= 40;
  const grid = (
    <table>
      <thead>
        <tr>
          {table.columns.map((c, i) => (
            <th key={i} scope="col" className={numeric[i] ? "num" : ""} title={c.type}>
              {c.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {table.rows.map((r, ri) => (
          <tr key={ri}>
            {r.values.map((v, ci) => {
              const shown = cellText(v, units[ci]);
              const exact = exactText(v);
              return (
                <td key={ci} className={(numeric[ci] ? "num" : "") + (v.kind.case === "nullValue" ? " null" : "")} title={exact && exact !== shown ? exact : undefined}>
                  {shown}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <div className="result">
      <div className="result-bar">
        <span>
          {count(table.rows.length)} row{table.rows.length === 1 ? "" : "s"}
          {table.truncated ? " (more exist)" : ""}
        </span>
        <span className="result-actions">
          {expandable && <button type="button" onClick={() => setExpanded(true)}>Expand</button>}
          <button type="button" onClick={exportCsv}>Export CSV</button>
        </span>
      </div>
      {chartable && <BarChart table={table} units={units} />}
      <ScrollBox label={caption ?? "result table"}>{grid}</ScrollBox>
      {expanded && (
        <div className="overlay" role="dialog" aria-modal="true" aria-label={`Table ${caption ?? "result"}`} onKeyDown={(e) => e.key === "Escape" && setExpanded(false)}>
          <div className="overlay-body">
            <header>
              <h3>{caption ?? "Result"} · {count(table.rows.length)} rows</h3>
              <button type="button" autoFocus onClick={() => setExpanded(false)} aria-label="Close table">×</button>
            </header>
            <div className="table-scroll wide" tabIndex={0}>{grid}</div>
          </div>
        </div>
      )}
    </div>
  );
}

/** A scrolling box that says when columns are out of view to the right. */
export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setMore(el.scrollLeft + el.clientWidth < el.scrollWidth - 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    el.addEventListener("scroll", measure, { passive: true });
    return () => {
      observer.disconnect();
      el.removeEventListener("scroll", measure);
    };
  }, []);
  return (
    <div className={`scroll-wrap ${more ? "more" : ""}`}>
      <div className="table-scroll" ref={box} tabIndex={0} aria-label={label}>
        {children}
      </div>
      {more && <span className="more-hint" aria-hidden="true">more columns →</span>}
    </div>
  );
}

function BarChart({ table, units }: { table: Table; units: Unit[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [category, measure] = table.columns;
  const unit = units[1];
  // Largest first: a ranking reads top-down; the table keeps the query's own order.
  const bars = table.rows
    .map((r) => ({ label: cellText(r.values[0]), value: cellNumber(r.values[1]) ?? 0 }))
    .sort((a, b) => b.value - a.value);
  const title = `${measure.name} by ${category.name}`;
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels: bars.map((b) => b.label),
        datasets: [{ label: measure.name, data: bars.map((b) => b.value), backgroundColor: "#4f7cff" }],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (ctx) => formatNumber(Number(ctx.raw), unit) } },
        },
        scales: {
          x: { title: { display: true, text: category.name } },
          y: { title: { display: true, text: label(measure.name, unit) }, ticks: { callback: (v) => formatNumber(Number(v), unit) } },
        },
      },
    });
    return () => chart.destroy();
  }, [table]);
  const spoken = bars.map((b) => `${b.label} ${formatNumber(b.value, unit)}`).join(", ");
  return (
    <figure className="chart-figure">
      <figcaption>{title}</figcaption>
      <div className="chart" role="img" aria-label={`Bar chart of ${title}, largest first: ${spoken}`}>
        <canvas ref={canvas} />
      </div>
    </figure>
  );
}
