// A result table: scrollable, typed formatting, "Export CSV"; grouped aggregates also as a chart.
import { useEffect, useRef } from "react";
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Tooltip } from "chart.js";
import type { Table } from "@aware/client";
import { cellNumber, cellText, csvCell, csvText } from "./api";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

function isNumeric(t: Table, col: number): boolean {
  return t.rows.length > 0 && t.rows.every((r) => {
    const k = r.values[col]?.kind;
    return k?.case === "nullValue" || cellNumber(r.values[col]) !== undefined;
  });
}

export function ResultTable({ table, caption }: { table: Table; caption?: string }) {
  const numeric = table.columns.map((_, i) => isNumeric(table, i));
  const exportCsv = () => {
    const lines = [table.columns.map((c) => csvText(c.name)).join(",")];
    for (const r of table.rows) lines.push(r.values.map(csvCell).join(","));
    const url = URL.createObjectURL(new Blob([lines.join("\n") + "\n"], { type: "text/csv" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${caption ?? "result"}.csv`.replace(/[^\w.-]+/g, "_");
    a.click();
    URL.revokeObjectURL(url);
  };
  const chartable = table.columns.length === 2 && !numeric[0] && numeric[1] && table.rows.length >= 2 && table.rows.length <= 40;
  return (
    <div className="result">
      <div className="result-bar">
        <span>
          {table.rows.length} row{table.rows.length === 1 ? "" : "s"}
          {table.truncated ? " (more exist)" : ""}
        </span>
        <button type="button" onClick={exportCsv}>Export CSV</button>
      </div>
      {chartable && <BarChart table={table} />}
      <div className="table-scroll" tabIndex={0} aria-label={caption ?? "result table"}>
        <table>
          <thead>
            <tr>
              {table.columns.map((c, i) => (
                <th key={i} className={numeric[i] ? "num" : ""} title={c.type}>
                  {c.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r, ri) => (
              <tr key={ri}>
                {r.values.map((v, ci) => (
                  <td key={ci} className={(numeric[ci] ? "num" : "") + (v.kind.case === "nullValue" ? " null" : "")}>
                    {cellText(v)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function BarChart({ table }: { table: Table }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels: table.rows.map((r) => cellText(r.values[0])),
        datasets: [{ label: table.columns[1].name, data: table.rows.map((r) => cellNumber(r.values[1]) ?? 0), backgroundColor: "#4f7cff" }],
      },
      options: { animation: false, responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } } },
    });
    return () => chart.destroy();
  }, [table]);
  return (
    <div className="chart" role="img" aria-label={`Bar chart of ${table.columns[1].name} by ${table.columns[0].name}`}>
      <canvas ref={canvas} />
    </div>
  );
}
