// A run as people see it, built from its events alone — the same for a run streaming in the
// assistant, one reopened with its conversation and one in the run inspector: answer text, a
// chip per tool call, rich results, confirmation cards, questions back, what went into or out of
// memory, and where the answer's numbers came from. Pure: React renders it elsewhere
// (`inspector/TranscriptItems.tsx`).
import {
  ConfirmationResolution,
  RunOutcome,
  RunStatus,
  ToolPhase,
  type ClarificationRequired,
  type ConfirmationRequired,
  type Grounding,
  type ServerEvent,
  type ToolProvenance,
  type ToolResult,
} from "@aware/client";
import { aware } from "./api";

/** How a question back ended, as its `ClarificationResolved` (or the answer this page sent) says. */
export interface ClarificationEnd {
  resolution: ConfirmationResolution;
  choice: string;
  remembered: boolean;
}

export type Item =
  | { kind: "text"; id: string; text: string }
  | { kind: "tool"; id: string; name: string; title: string; phase: ToolPhase; from?: string }
  | { kind: "result"; id: string; result: ToolResult }
  | { kind: "denied"; id: string; reason: string; from?: string }
  | { kind: "confirm"; id: string; c: ConfirmationRequired; resolution?: ConfirmationResolution }
  /** A question back: which column (or value, or date) the words meant. */
  | { kind: "clarify"; id: string; q: ClarificationRequired; ended?: ClarificationEnd }
  /** A call a session grant allowed: no card was shown. */
  | { kind: "granted"; id: string }
  | { kind: "memory"; id: string; text: string; saved: boolean }
  /** Where the numbers of the run's answer (its last text) came from; it comes after that text. */
  | { kind: "grounding"; id: string; grounding: Grounding };

export interface Transcript {
  items: Item[];
  status: RunStatus;
  /** What the run came to, from its RunCompleted (UNSPECIFIED until then). */
  outcome?: RunOutcome;
  /** What to ask next, from its RunCompleted: each one the server read as answerable. */
  followUps?: string[];
  error?: string;
}

export const FINAL_PHASES = new Set([ToolPhase.SUCCEEDED, ToolPhase.FAILED, ToolPhase.DENIED, ToolPhase.EXPIRED, ToolPhase.CANCELLED]);

/** Where an external server's tool comes from, in words ("from everything · scope demo.read");
 *  nothing for aware's own tools. */
export function origin(p: ToolProvenance | undefined): string | undefined {
  if (!p || p.source !== "external") return undefined;
  return `from ${p.serverId}${p.scope ? ` · scope ${p.scope}` : ""}`;
}

export function isActive(status: RunStatus): boolean {
  return status === RunStatus.RUNNING || status === RunStatus.AWAITING_CONFIRMATION || status === RunStatus.QUEUED;
}

/** Whether a tool of the run computed a query that succeeded (its result carries the SQL): its
 *  answer may go stale, and RerunQuery can compute it again. */
export function ranQuery(items: Item[]): boolean {
  return items.some((i) => i.kind === "result" && !i.result.isError && i.result.executedSql !== "");
}

/** Folds one event into a run's transcript (events are de-duplicated upstream by seq). */
export function apply<T extends Transcript>(t: T, e: ServerEvent): T {
  const items = [...t.items];
  const p = e.payload;
  const tool = (id: string) => items.findIndex((x) => x.kind === "tool" && x.id === id);
  switch (p.case) {
    case "textDelta": {
      const last = items.findIndex((i) => i.kind === "text" && i.id === p.value.messageId);
      if (last >= 0) {
        const text = items[last] as Extract<Item, { kind: "text" }>;
        items[last] = { ...text, text: text.text + p.value.delta };
      } else items.push({ kind: "text", id: p.value.messageId, text: p.value.delta });
      break;
    }
    case "toolCallStarted":
      items.push({ kind: "tool", id: p.value.toolCallId, name: p.value.toolName, title: p.value.title, phase: ToolPhase.QUEUED, from: origin(p.value.provenance) });
      break;
    case "toolStatus": {
      const i = tool(p.value.toolCallId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "tool" }>), phase: p.value.phase };
      break;
    }
    case "toolResult": {
      const i = tool(p.value.toolCallId);
      if (i >= 0) {
        const chip = items[i] as Extract<Item, { kind: "tool" }>;
        // A result replayed after a restart comes without its status event.
        if (!FINAL_PHASES.has(chip.phase)) items[i] = { ...chip, phase: p.value.isError ? ToolPhase.FAILED : ToolPhase.SUCCEEDED };
      }
      items.push({ kind: "result", id: p.value.toolCallId, result: p.value });
      break;
    }
    case "toolDenied":
      items.push({ kind: "denied", id: p.value.toolCallId, reason: p.value.reason, from: origin(p.value.provenance) });
      break;
    case "confirmationRequired":
      items.push({ kind: "confirm", id: p.value.confirmationId, c: p.value });
      break;
    case "confirmationResolved": {
      const i = items.findIndex((x) => x.kind === "confirm" && x.id === p.value.confirmationId);
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "confirm" }>), resolution: p.value.resolution };
      else if (p.value.grantId) items.push({ kind: "granted", id: p.value.confirmationId });
      break;
    }
    case "clarificationRequired":
      items.push({ kind: "clarify", id: p.value.clarificationId, q: p.value });
      break;
    case "clarificationResolved": {
      const i = items.findIndex((x) => x.kind === "clarify" && x.id === p.value.clarificationId);
      const { resolution, choice, remembered } = p.value;
      if (i >= 0) items[i] = { ...(items[i] as Extract<Item, { kind: "clarify" }>), ended: { resolution, choice, remembered } };
      break;
    }
    case "memorySaved":
      items.push({ kind: "memory", id: `${p.value.memoryId}+`, text: p.value.text, saved: true });
      break;
    case "memoryForgotten":
      items.push({ kind: "memory", id: `${p.value.memoryId}-`, text: p.value.text, saved: false });
      break;
    case "grounding":
      items.push({ kind: "grounding", id: String(e.seq), grounding: p.value });
      break;
    case "runCompleted":
      return { ...t, items, status: p.value.status, outcome: p.value.outcome, followUps: p.value.followUps, error: p.value.error?.message };
  }
  return { ...t, items };
}

export interface Replayed {
  transcript: Transcript;
  events: ServerEvent[];
  /** The last seq read: a run still going is followed from after it. */
  lastSeq: bigint;
}

/** A run's transcript rebuilt from its event log (read page by page), with the events it was
 *  built from. */
export async function replay(runId: string): Promise<Replayed> {
  const events: ServerEvent[] = [];
  let lastSeq = 0n;
  for (;;) {
    const page = await aware.runs.listRunEvents({ runId, afterSeq: lastSeq, limit: 1000 });
    events.push(...page.events);
    if (page.events.length === 0) break;
    lastSeq = page.events[page.events.length - 1].seq;
    if (lastSeq >= page.lastSeq) break;
  }
  return { transcript: events.reduce(apply, { items: [], status: RunStatus.UNSPECIFIED } as Transcript), events, lastSeq };
}
