// The Runs page: chat runs by their question (with the tokens a model used), with the query runs
// their tools ran nested under them; queries sent straight to QueryService (ExecuteSql, the CLI,
// other services) stand on their own. Newest first, a hundred at a time.
import { useInfiniteQuery } from "@tanstack/react-query";
import { RunKind, timestampDate, type Run } from "@aware/client";
import { errorText } from "../lib/api";
import { whenText } from "../lib/format";
import { AppLink } from "../lib/links";
import { runStateClass, runStateText, usageText } from "../lib/outcome";
import { usePageTitle } from "../lib/pageTitle";
import { runListQuery } from "../lib/queries/runs";
import { queryKind, queryTitle } from "../inspector/runTitle";
import { ScrollBox } from "../results/ScrollBox";

interface RunGroup {
  run: Run;
  queries: Run[];
}

/**
 * Chat runs with the query runs their tools ran under them (a run's `parentRunId`); queries sent
 * straight to QueryService — or whose chat run is not on this page — stand on their own.
 */
export function groupRuns(runs: Run[]): RunGroup[] {
  const queries = new Map<string, Run[]>(runs.filter((r) => r.kind === RunKind.CHAT).map((c) => [c.runId, []]));
  const top: Run[] = [];
  for (const r of runs) {
    const siblings = r.kind === RunKind.CHAT ? undefined : queries.get(r.parentRunId);
    if (siblings) siblings.unshift(r);
    else top.push(r);
  }
  return top.map((run) => ({ run, queries: queries.get(run.runId) ?? [] }));
}

function StatusCell({ run }: { run: Run }) {
  return <td className={`run-status ${runStateClass(run.status, run.outcome)}`}>{runStateText(run.status, run.outcome)}</td>;
}

export function RunsPage() {
  usePageTitle("Runs");
  const list = useInfiniteQuery(runListQuery());
  const runs = list.data?.pages.flatMap((p) => p.runs);
  const groups = runs ? groupRuns(runs) : [];
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      {list.isError && <p className="error" role="alert">{errorText(list.error)}</p>}
      {list.isPending && <p className="muted">Loading…</p>}
      {runs?.length === 0 && <p className="empty">No runs yet — ask the assistant something.</p>}
      {groups.length > 0 && (
        <ScrollBox label="Runs" className="page-table">
          <table className="runs">
            <colgroup><col className="when" /><col /><col className="state" /></colgroup>
            <thead><tr><th>When</th><th>Question</th><th>Outcome</th></tr></thead>
            {groups.map(({ run, queries }) => (
              <tbody key={run.runId} className={run.kind === RunKind.CHAT ? "chat-run" : "query-run"}>
                <tr>
                  <td className="when">
                    {run.createdAt && (
                      <time dateTime={timestampDate(run.createdAt).toISOString()} title={timestampDate(run.createdAt).toLocaleString()}>
                        {whenText(timestampDate(run.createdAt))}
                      </time>
                    )}
                  </td>
                  <td className="title">
                    {run.kind === RunKind.CHAT ? (
                      <>
                        <AppLink to={`/runs/${run.runId}`} title={run.question}>{run.question}</AppLink>
                        {usageText(run.usage) && <span className="run-usage">{usageText(run.usage)}</span>}
                      </>
                    ) : (
                      <AppLink to={`/runs/${run.runId}`} title={run.question}><span className="badge">{queryKind(run)}</span> <code>{queryTitle(run)}</code></AppLink>
                    )}
                  </td>
                  <StatusCell run={run} />
                </tr>
                {queries.map((q) => (
                  <tr key={q.runId} className="nested">
                    <td />
                    <td className="title">
                      <AppLink to={`/runs/${q.runId}`} title={q.question}>↳ <span className="badge">{queryKind(q)}</span> <code>{queryTitle(q)}</code></AppLink>
                    </td>
                    <StatusCell run={q} />
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </ScrollBox>
      )}
      {list.hasNextPage && (
        <p><button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>Load older runs</button></p>
      )}
    </section>
  );
}
