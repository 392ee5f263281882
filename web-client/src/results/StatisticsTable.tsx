// Every statistic the API gives for a dataset's columns, each number formatted for its column
// (money in its currency).
import type { DatasetStatistics } from "@aware/client";
import { cellText, columnUnit, count, formatNumber, type Unit } from "../lib/format";
import { ScrollBox } from "./ScrollBox";

export function StatisticsTable({ stats }: { stats: DatasetStatistics }) {
  const n = (x: number | undefined, unit: Unit) => (x === undefined ? "" : formatNumber(x, unit));
  return (
    <ScrollBox label={`statistics of ${stats.tableName}`}>
      <table className="statistics">
        <thead>
          <tr>
            <th scope="col">Column</th><th scope="col">Type</th><th scope="col" className="num">Missing</th><th scope="col" className="num">Distinct</th>
            <th scope="col" className="num">Min</th><th scope="col" className="num">Max</th><th scope="col" className="num">Mean</th><th scope="col" className="num">Median</th><th scope="col" className="num">Std dev</th>
          </tr>
        </thead>
        <tbody>
          {stats.columns.map((c) => {
            const unit = columnUnit(c.name);
            return (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td>{c.type}</td>
                <td className="num">{count(c.nullCount)}</td>
                <td className="num">{count(c.distinctCount)}</td>
                <td className="num clip" title={c.min ? cellText(c.min) : ""}>{c.min ? cellText(c.min, unit) : ""}</td>
                <td className="num clip" title={c.max ? cellText(c.max) : ""}>{c.max ? cellText(c.max, unit) : ""}</td>
                <td className="num">{n(c.mean, unit)}</td>
                <td className="num">{n(c.median, unit)}</td>
                <td className="num">{n(c.stddev, unit)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollBox>
  );
}
