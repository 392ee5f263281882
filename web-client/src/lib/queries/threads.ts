// Conversations as server state: the list (newest activity first, a page at a time, or the
// threads a search finds), one thread (its title and turns), and renaming and deleting them.
import { infiniteQueryOptions, keepPreviousData, queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { aware } from "../api";
import { keys } from "../queryKeys";

export const threadListQuery = (search: string) =>
  infiniteQueryOptions({
    queryKey: keys.threads.list(search),
    queryFn: ({ pageParam }) => aware.threads.listThreads({ pageSize: 50, pageToken: pageParam, query: search }),
    initialPageParam: "",
    getNextPageParam: (page) => page.nextPageToken || undefined,
    // While a new search runs, the last one's threads stay listed.
    placeholderData: keepPreviousData,
  });

export const threadQuery = (id: string) =>
  queryOptions({
    queryKey: keys.threads.detail(id),
    queryFn: () => aware.threads.getThread({ threadId: id }),
  });

export function useRenameThread() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, title }: { id: string; title: string }) => aware.threads.renameThread({ threadId: id, title }),
    onSuccess: (_, { id, title }) => {
      // The assistant's header names the thread at once, with the list.
      client.setQueryData(threadQuery(id).queryKey, (got) => (got?.thread ? { ...got, thread: { ...got.thread, title } } : got));
      return client.invalidateQueries({ queryKey: keys.threads.all });
    },
  });
}

export function useDeleteThread() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.threads.deleteThread({ threadId: id }),
    // Not awaited: whoever deleted it takes it off the screen at once, the list follows.
    onSuccess: (_, id) => {
      client.removeQueries({ queryKey: keys.threads.detail(id) });
      void client.invalidateQueries({ queryKey: keys.threads.all });
    },
  });
}

/** Edit and resend: a copy of the conversation up to `runId` (exclusive), as a new thread. */
export function useForkThread() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (runId: string) => {
      const id = (await aware.threads.forkThread({ runId })).thread?.threadId;
      if (!id) throw new Error("the server made the copy but did not name it");
      return id;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: keys.threads.all }),
  });
}
