// What the assistant keeps for this person: remembered facts and the session grants ("Allow for
// 5 minutes") still in force, with adding, forgetting and revoking.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { aware } from "../api";
import { keys } from "../queryKeys";

export function useMemories() {
  return useQuery({ queryKey: keys.memories, queryFn: async () => (await aware.memory.listMemories({})).memories });
}

export function useGrants() {
  return useQuery({ queryKey: keys.grants, queryFn: async () => (await aware.chat.listGrants({})).grants });
}

export function useAddMemory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => aware.memory.addMemory({ text }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.memories }),
  });
}

export function useForgetMemory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.memory.deleteMemory({ memoryId: id }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.memories }),
  });
}

export function useRevokeGrant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => aware.chat.revokeGrant({ grantId: id }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.grants }),
  });
}
