// StateSnapshots: every route change, dataset selection, upload and delete tells aware where the
// user is and what they see, for the conversation on screen, so "what am I looking at?" is
// answered about the open dataset. A new conversation's first snapshot opens its thread; the next
// ones wait for it and reuse it.
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { matchPath, useLocation } from "react-router";
import type { DatasetStatus } from "@aware/client";
import { aware } from "../lib/api";
import { useDatasets } from "../lib/queries/datasets";

/** What a StateSnapshot says besides its thread and version. */
interface Place {
  currentRoute: string;
  activeDatasetId: string;
  datasets: { id: string; name: string; rowCount: bigint; status: DatasetStatus }[];
}

export function useSnapshots(conversation: RefObject<string>) {
  const { pathname } = useLocation();
  const datasets = useDatasets().data;
  const activeDatasetId = matchPath("/datasets/:id", pathname)?.params.id ?? "";
  const place = useRef<Place | null>(null);
  const version = useRef(BigInt(Date.now()) * 1000n);
  /** The last snapshot's thread (a promise: the server names a new one), and whose it was. */
  const thread = useRef<{ of: string; id: Promise<string> } | null>(null);

  /** Sends where the user is, for the conversation `of` ("" = a new one). */
  const snapshot = useCallback((of: string) => {
    const where = place.current;
    if (!where) return;
    version.current += 1n;
    const uiStateVersion = version.current;
    const previous = thread.current?.of === of ? thread.current.id : null;
    thread.current = {
      of,
      id: (async () => {
        const threadId = of || (previous ? await previous.catch(() => "") : "");
        return (await aware.updateState({ ...where, uiStateVersion, threadId })).threadId;
      })(),
    };
  }, []);

  useEffect(() => {
    if (!datasets) return;
    place.current = {
      currentRoute: pathname,
      activeDatasetId,
      datasets: datasets.map((d) => ({ id: d.id, name: d.tableName, rowCount: d.rowCount, status: d.status })),
    };
    snapshot(conversation.current);
  }, [pathname, activeDatasetId, datasets, snapshot, conversation]);

  /** The thread the next message goes to (the last snapshot's, once the server named it). */
  const threadId = useCallback(async () => (thread.current ? thread.current.id : conversation.current), [conversation]);

  return { snapshot, threadId };
}
