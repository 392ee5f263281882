// Datasets as server state: the list (followed while a file is still being ingested), one
// dataset (followed while its search index is being built), its preview and statistics (keyed by
// content version), the verified queries — and the changes a person makes to them, each
// invalidating what it changed.
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { DatasetStatus, SearchIndexState, type Dataset } from "@aware/client";
import { aware } from "../api";
import { keys } from "../queryKeys";

/** How often a dataset still settling (ingesting, indexing) is read again. */
const SETTLING_POLL_MS = 1000;

export const datasetListQuery = () =>
  queryOptions({
    queryKey: keys.datasets.list(),
    queryFn: async () => (await aware.datasets.listDatasets({})).datasets,
    // A dataset still being ingested turns ready or failed on its own: follow it.
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === DatasetStatus.PROCESSING) ? SETTLING_POLL_MS : false),
  });

export function useDatasets() {
  return useQuery(datasetListQuery());
}

const INDEX_SETTLING = [SearchIndexState.UNSPECIFIED, SearchIndexState.INDEXING, SearchIndexState.EMBEDDING];

/** Still changing on its own: being ingested, or its search index being built. */
function settling(d: Dataset | undefined): boolean {
  if (!d) return false;
  if (d.status === DatasetStatus.PROCESSING) return true;
  return d.status === DatasetStatus.READY && INDEX_SETTLING.includes(d.searchIndex?.state ?? SearchIndexState.UNSPECIFIED);
}

export const datasetQuery = (id: string) =>
  queryOptions({
    queryKey: keys.datasets.detail(id),
    queryFn: async () => {
      const d = (await aware.datasets.getDataset({ datasetId: id, sampleRows: 0 })).dataset;
      if (!d) throw new Error("the server found the dataset but returned none");
      return d;
    },
    refetchInterval: (q) => (settling(q.state.data) ? SETTLING_POLL_MS : false),
  });

/** The questions a dataset suggests: each one the server read as answerable before offering it. */
export function useSuggestedQuestions(id: string) {
  return useQuery({
    queryKey: keys.datasets.suggestions(id),
    queryFn: async () => (await aware.datasets.getDataset({ datasetId: id, sampleRows: 0 })).suggestedQuestions,
    enabled: id !== "",
    staleTime: 60_000,
  });
}

/** One dataset; shown at once from the list when the list has it, then read on its own. */
export function useDataset(id: string) {
  const client = useQueryClient();
  return useQuery({
    ...datasetQuery(id),
    placeholderData: () => client.getQueryData(datasetListQuery().queryKey)?.find((d) => d.id === id),
  });
}

/** The first rows of a dataset's content `version`. While a new version's rows are read, the
 *  previous version's stay on screen (the same dataset only). */
export function usePreview(id: string, version: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.datasets.preview(id, version),
    queryFn: async () => (await aware.datasets.previewRows({ datasetId: id, limit: 20 })).table ?? null,
    enabled,
    placeholderData: (previous, query) => (query?.queryKey[2] === id ? previous : undefined),
  });
}

export function useStatistics(id: string, version: string, enabled: boolean) {
  return useQuery({
    queryKey: keys.datasets.statistics(id, version),
    queryFn: async () => (await aware.datasets.getDatasetStatistics({ datasetId: id })).statistics ?? null,
    enabled,
    placeholderData: (previous, query) => (query?.queryKey[2] === id ? previous : undefined),
  });
}

export function useSavedQueries() {
  return useQuery({
    queryKey: keys.savedQueries,
    queryFn: async () => (await aware.datasets.listSavedQueries({})).queries,
  });
}

/** Uploads a file; the list is read again whether it loaded or not (a file that fails ingestion
 *  is listed too, with its reason). */
export function useUpload() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ file, onProgress }: { file: File; onProgress: (fraction: number) => void }) =>
      aware.uploadFile(file.name, new Uint8Array(await file.arrayBuffer()), { onProgress: (sent, total) => onProgress(sent / total) }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.datasets.all }),
  });
}

/** Deletes a dataset; verified queries that read it may go with it. */
export function useDeleteDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.datasets.deleteDataset({ datasetId: id }),
    onSuccess: (_, id) => {
      const its = (key: readonly unknown[]) => key[1] !== "list" && key[2] === id;
      // The answers that read it are stale now.
      void client.invalidateQueries({ queryKey: keys.runs.details });
      return Promise.all([
        // The page that asked is left at once: its dataset is not read again (it is gone), only
        // marked stale, so a way back to it finds it gone.
        client.invalidateQueries({ queryKey: keys.datasets.all, predicate: (q) => its(q.queryKey), refetchType: "none" }),
        client.invalidateQueries({ queryKey: keys.datasets.all, predicate: (q) => !its(q.queryKey) }),
        client.invalidateQueries({ queryKey: keys.savedQueries }),
      ]);
    },
  });
}

/** Renames or describes a dataset. A new table name rewrites the verified queries that read it. */
export function useUpdateDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: Parameters<typeof aware.datasets.updateDataset>[0]) => aware.datasets.updateDataset(change),
    // Resolves once the page shows the new names.
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: keys.datasets.all }),
        client.invalidateQueries({ queryKey: keys.savedQueries }),
      ]),
  });
}

/** Reads a dataset's file again; resolves once the page shows the new content (when it changed). */
export function useRefreshDataset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.datasets.refreshDataset({ datasetId: id }),
    onSuccess: (r) => {
      if (!r.changed) return undefined;
      // The answers that read it are stale now.
      void client.invalidateQueries({ queryKey: keys.runs.details });
      return client.invalidateQueries({ queryKey: keys.datasets.all });
    },
  });
}

export function useDeleteSavedQuery() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.datasets.deleteSavedQuery({ query: id }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.savedQueries }),
  });
}
