// Runs as server state: the list (page by page), a run's capsule, its event log (with the
// transcript and steps built from it) and its trace spans. A run still going is read again until
// it ends, so the inspector follows it.
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { aware } from "../api";
import { keys } from "../queryKeys";
import { isActive, replay } from "../transcript";

const RUNNING_POLL_MS = 1000;

export const runListQuery = () =>
  infiniteQueryOptions({
    queryKey: keys.runs.list(),
    queryFn: ({ pageParam }) => aware.runs.listRuns({ pageSize: 100, pageToken: pageParam }),
    initialPageParam: "",
    getNextPageParam: (page) => page.nextPageToken || undefined,
  });

export const runQuery = (id: string) =>
  queryOptions({
    queryKey: keys.runs.detail(id),
    queryFn: async () => {
      const run = (await aware.runs.getRun({ runId: id })).run;
      if (!run) throw new Error("the server found the run but returned none");
      return run;
    },
    refetchInterval: (q) => (q.state.data && isActive(q.state.data.status) ? RUNNING_POLL_MS : false),
  });

/** A run's event log; `going`: the run is still going, so the log grows (read again until it ends). */
export const runEventsQuery = (id: string, going = false) =>
  queryOptions({
    queryKey: keys.runs.events(id),
    queryFn: () => replay(id),
    refetchInterval: going ? RUNNING_POLL_MS : false,
  });

export const runTraceQuery = (id: string) =>
  queryOptions({
    queryKey: keys.runs.trace(id),
    queryFn: async () => (await aware.runs.getRunTrace({ runId: id })).spans,
  });
