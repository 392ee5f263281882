// What the assistant did in a run, step by step, from its event log (the run inspector reads it
// once, for this and the transcript): the routing decision (the tools offered and those withheld)
// when a model router made one, each tool call's start (with where the tool comes from) and its
// end with how long it took, denials with their reason, approvals asked and answered (and how long
// the person took), questions back, retrievals, the grounding check, and the end with its usage.
// Each step says when it happened after the run started.
import {
  timestampDate,
  ConfirmationResolution,
  ConfirmationTier,
  RunOutcome,
  RunStatus,
  type ServerEvent,
} from "@aware/client";
import { runStateText, usageText } from "../lib/outcome";
import { origin } from "../lib/transcript";

export interface Step {
  /** Milliseconds after RunStarted. */
  at: number;
  kind: "route" | "tool" | "denied" | "confirm" | "clarify" | "retrieval" | "grounding" | "end";
  text: string;
  /** Failed, denied, expired: shown as a problem. */
  bad?: boolean;
}

const RESOLUTION: Record<number, string> = {
  [ConfirmationResolution.APPROVED]: "approved",
  [ConfirmationResolution.DENIED]: "denied",
  [ConfirmationResolution.EXPIRED]: "expired",
  [ConfirmationResolution.CANCELLED]: "cancelled",
};

const ms = (e: ServerEvent) => (e.time ? timestampDate(e.time).getTime() : 0);

/** The steps of a run from its events, in order. */
export function steps(events: ServerEvent[]): Step[] {
  const start = events.find((e) => e.payload.case === "runStarted");
  const t0 = start ? ms(start) : events.length ? ms(events[0]) : 0;
  const out: Step[] = [];
  const calls = new Map<string, { title: string; from: string }>();
  const asked = new Map<string, number>();
  for (const e of events) {
    const at = Math.max(0, ms(e) - t0);
    const p = e.payload;
    switch (p.case) {
      case "routingDecided": {
        const r = p.value;
        const withheld = r.withheldTools.length ? `; withheld ${r.withheldTools.length}: ${r.withheldTools.join(", ")}` : "";
        out.push({ at, kind: "route", text: `Routed as ${r.intent.replace(/_/g, " ")} (${r.risk}, confidence ${r.confidence.toFixed(2)}): offered ${r.tools.length} tool${r.tools.length === 1 ? "" : "s"}${withheld}` });
        break;
      }
      case "toolCallStarted": {
        const v = p.value;
        const where = origin(v.provenance);
        const from = where ? ` · ${where}` : "";
        calls.set(v.toolCallId, { title: v.title, from });
        out.push({ at, kind: "tool", text: `${v.title || v.toolName} (${v.toolName}${from}) — started` });
        break;
      }
      case "toolResult": {
        const v = p.value;
        const call = calls.get(v.toolCallId);
        const how = v.isError ? `failed${v.error?.message ? `: ${v.error.message}` : ""}` : "succeeded";
        out.push({ at, kind: "tool", text: `${call?.title || v.toolName} (${v.toolName}${call?.from ?? ""}) — ${how} in ${v.durationMs} ms`, bad: v.isError });
        break;
      }
      case "toolDenied": {
        const v = p.value;
        const where = origin(v.provenance);
        out.push({ at, kind: "denied", text: `${v.toolName}${where ? ` (${where})` : ""} denied (${v.code}): ${v.reason}`, bad: true });
        break;
      }
      case "confirmationRequired": {
        const v = p.value;
        asked.set(v.confirmationId, at);
        const tier = v.tier === ConfirmationTier.ELEVATED ? "an elevated approval" : "an approval";
        out.push({ at, kind: "confirm", text: `Asked for ${tier}: ${v.description}` });
        break;
      }
      case "confirmationResolved": {
        const v = p.value;
        const since = asked.get(v.confirmationId);
        const how = v.grantId ? "allowed by a standing grant" : (RESOLUTION[v.resolution] ?? "answered");
        const waited = since === undefined ? "" : ` after ${((at - since) / 1000).toFixed(1)} s`;
        out.push({ at, kind: "confirm", text: `Approval ${how}${waited}${v.editedArgumentsJson ? ", with narrower arguments" : ""}`, bad: v.resolution !== ConfirmationResolution.APPROVED });
        break;
      }
      case "clarificationRequired":
        out.push({ at, kind: "clarify", text: `Asked back: ${p.value.question}` });
        break;
      case "clarificationResolved": {
        const v = p.value;
        const how = v.resolution === ConfirmationResolution.APPROVED ? (v.choice ? `answered “${v.choice}”` : "answered: none of these") : (RESOLUTION[v.resolution] ?? "ended");
        out.push({ at, kind: "clarify", text: `Question back ${how}${v.remembered ? " (remembered)" : ""}` });
        break;
      }
      case "retrievalCompleted":
        out.push({ at, kind: "retrieval", text: `Retrieved ${p.value.chunkIds.length} passage${p.value.chunkIds.length === 1 ? "" : "s"} for “${p.value.query}”` });
        break;
      case "grounding": {
        const v = p.value;
        // `numbers` holds every number of the answer; an untraced one has no source.
        const traced = v.numbers.filter((n) => n.source).length;
        const text = v.numbers.length === 0 ? "Numbers checked: the answer has none" : `Numbers checked: ${traced} of ${v.numbers.length} traced to a result`;
        out.push({ at, kind: "grounding", text, bad: v.ungrounded > 0 });
        break;
      }
      case "runCompleted": {
        const v = p.value;
        const usage = usageText(v.usage);
        const state = runStateText(v.status, v.outcome);
        const bad = v.status !== RunStatus.SUCCEEDED || (v.outcome !== RunOutcome.UNSPECIFIED && v.outcome !== RunOutcome.ANSWERED);
        out.push({ at, kind: "end", text: `Ended ${state} after ${at} ms${v.error?.message ? `: ${v.error.message}` : ""}${usage ? ` · ${usage}` : ""}`, bad });
        break;
      }
      default:
        break;
    }
  }
  return out;
}
