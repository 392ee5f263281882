// Every piece of server state the app reads, by key. Keys nest (a dataset's preview sits under
// "datasets"), so a change invalidates one prefix and every query under it is read again: a
// delete invalidates `datasets.all`, which covers the list, each dataset and their previews.

export interface AuditFilterKey {
  userId: string;
  source: string;
  action: string;
  since: string;
  until: string;
}

export const keys = {
  datasets: {
    all: ["datasets"] as const,
    list: () => ["datasets", "list"] as const,
    detail: (id: string) => ["datasets", "detail", id] as const,
    /** Keyed by content version: new content is a new preview. */
    preview: (id: string, version: string) => ["datasets", "preview", id, version] as const,
    statistics: (id: string, version: string) => ["datasets", "statistics", id, version] as const,
    /** The questions it suggests (they change with its columns and values). */
    suggestions: (id: string) => ["datasets", "suggestions", id] as const,
  },
  savedQueries: ["saved-queries"] as const,
  runs: {
    all: ["runs"] as const,
    list: () => ["runs", "list"] as const,
    detail: (id: string) => ["runs", "detail", id] as const,
    /** Every run's capsule: whether a run's data changed since (`stale`) follows the datasets. */
    details: ["runs", "detail"] as const,
    /** A run's event log, and its transcript and steps built from it. */
    events: (id: string) => ["runs", "events", id] as const,
    trace: (id: string) => ["runs", "trace", id] as const,
  },
  threads: {
    all: ["threads"] as const,
    list: (search: string) => ["threads", "list", search] as const,
    detail: (id: string) => ["threads", "detail", id] as const,
  },
  memories: ["memories"] as const,
  grants: ["grants"] as const,
  admin: {
    all: ["admin"] as const,
    users: () => ["admin", "users"] as const,
    apiKeys: () => ["admin", "api-keys"] as const,
    audit: (filter: AuditFilterKey) => ["admin", "audit", filter] as const,
  },
  /** The server's tools, their wording, the caller's role, external MCP servers. */
  capabilities: ["capabilities"] as const,
  /** Confirmations waiting for this person, from any run or MCP client. */
  pendingConfirmations: ["confirmations", "pending"] as const,
};
