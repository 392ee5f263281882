// The app's cache of server state. A query is read again when a page that shows it mounts, the
// window regains focus, or a change invalidates it; failures of the connection are tried again
// (twice), refusals of the request (not found, not allowed, invalid) are shown at once.
import { QueryClient } from "@tanstack/react-query";
import { isRetryable } from "./api";

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => failures < 2 && isRetryable(error),
      },
      mutations: { retry: false },
    },
  });
}
