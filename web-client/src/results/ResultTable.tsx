// A result table: typed formatting (money in its currency from the column name, rounded numbers
// with the exact value on hover), sorting by a column's header, horizontal scrolling with a hint
// when columns are out of view, "Expand" to read a wide table in a dialog the size of the window,
// formula-safe "Export CSV" of the rows as shown, and above it a chart: the one the server picked
// for the result when it picked one, else one the person asks for ("Chart"), either re-drawn as
// they pick its kind, the column across and the number drawn (`chartPick.ts`). The table model — the
// sorting state, its cycle and the sorted rows — is TanStack Table's; the order of two cells is
// ours (`compareCells`).
import { useMemo, useState } from "react";
import { getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from "@tanstack/react-table";
import { ChartKind, type Chart, type Row, type Table, type Value } from "@aware/client";
import { cellNumber, cellText, columnUnit, count, exactText, tableCsv } from "../lib/format";
import { DialogContent, DialogRoot, DialogTrigger } from "../ui/Dialog";
import { ChartFigure } from "./ChartFigure";
import { chartable, pickedChart, seedPick, type Pick } from "./chartPick";
import { ScrollBox } from "./ScrollBox";

function isNumeric(t: Table, col: number): boolean {
  return t.rows.length > 0 && t.rows.every((r) => {
    const k = r.values[col]?.kind;
    return k?.case === "nullValue" || cellNumber(r.values[col]) !== undefined;
  });
}

/** Orders two cells of one column, ascending: numbers by value (whole numbers exactly), text as
 * people read it (`item 2` before `item 10`); nulls last — and `descending` says that the table
 * will turn the order round, so that they stay last that way too. (TanStack's `sortUndefined:
 * "last"` would put them there, but it calls two nulls unequal, so their order among themselves
 * would be the browser's sort's, not the server's.) */
function compareCells(a: Value | undefined, b: Value | undefined, numeric: boolean, descending: boolean): number {
  const nullA = a?.kind.case === "nullValue" || a === undefined;
  const nullB = b?.kind.case === "nullValue" || b === undefined;
  if (nullA || nullB) return nullA === nullB ? 0 : (nullA ? 1 : -1) * (descending ? -1 : 1);
  return compareValues(a, b, numeric);
}

function compareValues(a: Value, b: Value, numeric: boolean): number {
  if (a.kind.case === "intValue" && b.kind.case === "intValue") return a.kind.value < b.kind.value ? -1 : a.kind.value > b.kind.value ? 1 : 0;
  if (numeric) {
    const x = cellNumber(a) ?? NaN;
    const y = cellNumber(b) ?? NaN;
    // NaN after every number.
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? 0 : Number.isNaN(x) ? 1 : -1;
    return x - y;
  }
  return collator.compare(cellText(a), cellText(b));
}
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** A result table; `raw` (a dataset's own rows) shows numbers exactly as stored, not rounded for reading. */
export function ResultTable({ table, chart, caption, expandable = false, raw = false }: { table: Table; chart?: Chart; caption?: string; expandable?: boolean; raw?: boolean }) {
  // A header click sorts by that column, a second click the other way, a third puts the
  // server's order back (TanStack Table's cycle, ascending first whatever the column holds).
  // Equal cells keep the server's order.
  const [sorting, setSorting] = useState<SortingState>([]);
  const sort = sorting[0] ? { column: Number(sorting[0].id), descending: sorting[0].desc } : null;
  const descending = sort?.descending ?? false;
  // Worked out once per table: a streaming answer re-renders its turn for every delta.
  const numeric = useMemo(() => table.columns.map((_, i) => isNumeric(table, i)), [table]);
  const units = useMemo(() => table.columns.map((c) => columnUnit(c.name)), [table]);
  // The chart: as the server chose it until the person picks (null: they hid it).
  const canChart = useMemo(() => chartable(table, numeric), [table, numeric]);
  const seed = useMemo(() => (canChart ? seedPick(table, numeric, chart) : undefined), [canChart, table, numeric, chart]);
  const [pick, setPick] = useState<Pick | null | undefined>(undefined);
  // A pick made for another table (a new version with fewer columns) starts over.
  const fits = (p: Pick | null | undefined) => !p || (p.x < table.columns.length && p.y < table.columns.length && numeric[p.y]);
  const chosen = fits(pick) ? pick : undefined;
  const current = chosen === undefined ? (chart ? seed : undefined) : (chosen ?? undefined);
  const shown = useMemo(() => {
    if (!current) return undefined;
    const asServed = chart && seed && current.kind === seed.kind && current.x === seed.x && current.y === seed.y;
    return asServed ? chart : pickedChart(table, numeric, current);
  }, [current, chart, seed, table, numeric]);
  const columns = useMemo<ColumnDef<Row>[]>(
    () =>
      table.columns.map((_, i) => ({
        id: String(i),
        accessorFn: (r) => r.values[i],
        sortingFn: (x, y) => compareCells(x.original.values[i], y.original.values[i], numeric[i], descending),
      })),
    [table, numeric, descending],
  );
  const model = useReactTable({
    data: table.rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    sortDescFirst: false,
    enableMultiSort: false,
  });
  const rows = model.getRowModel().rows;
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([tableCsv(table.columns, rows.map((r) => r.original))], { type: "text/csv" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${caption ?? "result"}.csv`.replace(/[^\w.-]+/g, "_");
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const grid = (
    <table>
      <thead>
        <tr>
          {model.getFlatHeaders().map((header, i) => {
            const c = table.columns[i];
            const sorted = header.column.getIsSorted();
            return (
              <th
                key={header.id}
                scope="col"
                className={numeric[i] ? "num" : ""}
                aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
              >
                <button type="button" className="sort" onClick={() => header.column.toggleSorting()} title={`Sort by ${c.name}`}>
                  <span className="col-name">{c.name}</span>
                  <span className="sort-mark" aria-hidden="true">{sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : ""}</span>
                </button>
                {c.type && <span className="col-type">{c.type.toLowerCase()}</span>}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            {row.original.values.map((v, ci) => {
              const exact = exactText(v);
              // A raw view shows values as stored: exact numbers, dates as dates.
              const shown = raw ? exact || cellText(v) : cellText(v, units[ci]);
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
          {sort && (
            <>
              {" · sorted by "}
              {table.columns[sort.column]?.name}
              {numeric[sort.column] ? (sort.descending ? ", largest first" : ", smallest first") : sort.descending ? ", Z to A" : ", A to Z"}
              {table.truncated ? " — only the rows shown" : ""}
            </>
          )}
        </span>
        <span className="result-actions">
          {expandable && (
            <DialogRoot>
              <DialogTrigger>Expand</DialogTrigger>
              <DialogContent
                variant="window"
                closeLabel="Close table"
                title={<><span className="sr-only">Table </span>{caption ?? "Result"} · {count(table.rows.length)} rows</>}
              >
                <div className="table-scroll wide" tabIndex={0} role="region" aria-label={caption ?? "result table"}>{grid}</div>
              </DialogContent>
            </DialogRoot>
          )}
          {canChart && !current && seed && (
            <button type="button" onClick={() => setPick(seed)}>Chart</button>
          )}
          <button type="button" onClick={exportCsv}>Export CSV</button>
        </span>
      </div>
      {current && (
        <ChartPicker table={table} numeric={numeric} pick={current} onPick={setPick} />
      )}
      {shown && <ChartFigure chart={shown} />}
      {shown && table.truncated && <p className="muted chart-note">Drawn from the {count(table.rows.length)} rows shown, not from every row.</p>}
      <ScrollBox label={caption ?? "result table"}>{grid}</ScrollBox>
    </div>
  );
}

const KINDS: [ChartKind, string][] = [
  [ChartKind.BAR, "Bars"],
  [ChartKind.LINE, "Line"],
  [ChartKind.SCATTER, "Points"],
];

/** The chart's kind, the column across and the number drawn; Hide takes the chart away. */
function ChartPicker({ table, numeric, pick, onPick }: { table: Table; numeric: boolean[]; pick: Pick; onPick: (p: Pick | null) => void }) {
  return (
    <div className="chart-picker" role="group" aria-label="Chart settings">
      <label>
        Chart{" "}
        <select value={pick.kind} onChange={(e) => onPick({ ...pick, kind: Number(e.target.value) as ChartKind })}>
          {KINDS.map(([k, name]) => <option key={k} value={k}>{name}</option>)}
        </select>
      </label>
      <label>
        across{" "}
        <select value={pick.x} onChange={(e) => onPick({ ...pick, x: Number(e.target.value) })}>
          {table.columns.map((c, i) => <option key={i} value={i}>{c.name}</option>)}
        </select>
      </label>
      <label>
        of{" "}
        <select value={pick.y} onChange={(e) => onPick({ ...pick, y: Number(e.target.value) })}>
          {table.columns.map((c, i) => (numeric[i] ? <option key={i} value={i}>{c.name}</option> : null))}
        </select>
      </label>
      <button type="button" className="link" onClick={() => onPick(null)}>Hide chart</button>
    </div>
  );
}
