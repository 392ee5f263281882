// What the server offers this caller (GetCapabilities): its tools with their titles and the
// words for what each is doing ("Reading rows…"), the caller's role, the mode, the model, the
// external MCP servers. Read once and kept a while; Settings reads it fresh.
import { queryOptions, useQuery } from "@tanstack/react-query";
import { aware } from "../api";
import { keys } from "../queryKeys";

export const capabilitiesQuery = () =>
  queryOptions({
    queryKey: keys.capabilities,
    queryFn: () => aware.chat.getCapabilities({}),
    staleTime: 60_000,
  });

export function useCapabilities() {
  return useQuery(capabilitiesQuery());
}

/** The caller's role ("" until known, or when the server could not be asked: the app still
 *  works, without what is for admins only). */
export function useRole(): string {
  return useCapabilities().data?.role ?? "";
}

export interface ToolWords {
  /** What a tool shows while it runs; undefined when the server gave no words. */
  activity(tool: string): string | undefined;
  /** A tool's title ("Import files"), or its name when unknown. */
  title(tool: string): string;
}

/** How tools are named, as the server's tool registry words them. */
export function useToolWords(): ToolWords {
  const tools = useCapabilities().data?.tools ?? [];
  return {
    activity: (name) => tools.find((t) => t.name === name)?.activity || undefined,
    title: (name) => tools.find((t) => t.name === name)?.title || name,
  };
}
