// How a run is named in lists and on its page: a chat run by its question, a query run by the
// dataset and columns of its plan, or as SQL.
import { RunKind, type Run } from "@aware/client";

/** A query run's question in words: the plan's dataset and columns, or the SQL itself. */
export function queryTitle(r: Run): string {
  if (r.kind !== RunKind.QUERY_PLAN) return r.question;
  try {
    const plan = JSON.parse(r.question) as { dataset?: string; select?: { column?: string; aggregate?: string }[]; group_by?: string[] };
    const select = (plan.select ?? []).map((s) => (s.aggregate ? `${s.aggregate.replace(/^AGGREGATE_/, "").toLowerCase()}(${s.column || "*"})` : s.column)).join(", ");
    const by = plan.group_by?.length ? ` by ${plan.group_by.join(", ")}` : "";
    return `${plan.dataset ?? "?"}: ${select || "*"}${by}`;
  } catch {
    return r.question;
  }
}

/** The badge of a query run: "SQL" or "plan". */
export function queryKind(r: Run): string {
  return r.kind === RunKind.SQL ? "SQL" : "plan";
}
