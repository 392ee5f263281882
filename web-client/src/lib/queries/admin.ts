// Users, API keys and the audit log (admins only). Every change is read back — the lists and the
// audit log alike — so the page shows what is true, also after a refusal.
import { infiniteQueryOptions, keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { timestampFromDate } from "@aware/client";
import { aware } from "../api";
import { keys, type AuditFilterKey } from "../queryKeys";

export function useUsers() {
  return useQuery({ queryKey: keys.admin.users(), queryFn: async () => (await aware.admin.listUsers({})).users });
}

export function useApiKeys() {
  return useQuery({ queryKey: keys.admin.apiKeys(), queryFn: async () => (await aware.admin.listApiKeys({})).keys });
}

/** A datetime-local value ("2026-11-24T09:30", the browser's time zone) as a bound; none for "". */
const moment = (local: string) => (local ? timestampFromDate(new Date(local)) : undefined);

export const auditQuery = (filter: AuditFilterKey) =>
  infiniteQueryOptions({
    queryKey: keys.admin.audit(filter),
    queryFn: ({ pageParam }) =>
      aware.audit.listAuditEntries({
        userId: filter.userId,
        source: filter.source,
        action: filter.action.trim(),
        since: moment(filter.since),
        until: moment(filter.until),
        pageSize: 20,
        pageToken: pageParam,
      }),
    initialPageParam: "",
    getNextPageParam: (page) => page.nextPageToken || undefined,
    // A new filter's entries replace the last filter's when they come, not before.
    placeholderData: keepPreviousData,
  });

/** One change to users or keys; whatever its outcome, users, keys and the audit log are read again. */
export function useAdminChange<Args, Result>(call: (args: Args) => Promise<Result>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => client.invalidateQueries({ queryKey: keys.admin.all }),
  });
}
