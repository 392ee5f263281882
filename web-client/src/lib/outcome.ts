// How a run, a tool call or a card ended, in words that are true at that moment: a declined or
// lapsed confirmation, or a question back left unanswered, says so — never "succeeded".
import { ConfirmationResolution, RunOutcome, RunStatus, ToolPhase, type Usage } from "@aware/client";
import { count } from "./format";
import { isActive, type Item, type Transcript } from "./transcript";

/** A confirmation card's end. */
export const RESOLVED: Record<ConfirmationResolution, string> = {
  [ConfirmationResolution.UNSPECIFIED]: "Answered",
  [ConfirmationResolution.APPROVED]: "Allowed",
  [ConfirmationResolution.DENIED]: "Denied — nothing changed",
  [ConfirmationResolution.EXPIRED]: "Expired — nothing changed",
  [ConfirmationResolution.CANCELLED]: "Cancelled — nothing changed",
  [ConfirmationResolution.SUPERSEDED]: "Superseded — nothing changed",
};

/** An unanswered question back's end; an answered one names the choice instead. */
export const QUESTION_ENDED: Record<ConfirmationResolution, string> = {
  [ConfirmationResolution.UNSPECIFIED]: "Answered",
  [ConfirmationResolution.APPROVED]: "Answered",
  [ConfirmationResolution.DENIED]: "Dismissed — none of these",
  [ConfirmationResolution.EXPIRED]: "Expired — no answer came in time",
  [ConfirmationResolution.CANCELLED]: "Cancelled — the run stopped before an answer",
  [ConfirmationResolution.SUPERSEDED]: "Superseded — a newer message took over",
};

/** A tool chip's or a run's outcome when a question back ended without an answer and nothing
 *  was computed after it. */
export const UNANSWERED: Partial<Record<ConfirmationResolution, string>> = {
  [ConfirmationResolution.DENIED]: "Not answered — nothing computed",
  [ConfirmationResolution.EXPIRED]: "Expired — nothing computed",
};

/** Tool calls that ended without acting: their chip says so, and their result adds nothing. */
export const STOPPED = new Set([ToolPhase.DENIED, ToolPhase.EXPIRED, ToolPhase.CANCELLED]);

/** How a run ended (or where it is), in words. */
export function outcomeText(t: Transcript): string {
  if (isActive(t.status)) {
    if (t.items.some((i) => i.kind === "clarify" && i.ended === undefined)) return "Waiting for your answer";
    const waiting = t.status === RunStatus.AWAITING_CONFIRMATION || t.items.some((i) => i.kind === "tool" && i.phase === ToolPhase.AWAITING_CONFIRMATION);
    return waiting ? "Waiting for your approval" : "working…";
  }
  const confirms = t.items.filter((i): i is Extract<Item, { kind: "confirm" }> => i.kind === "confirm");
  const last = confirms[confirms.length - 1]?.resolution;
  if (t.status === RunStatus.SUCCEEDED && last !== undefined && last !== ConfirmationResolution.APPROVED) return RESOLVED[last];
  // A question back left unanswered, and no tool ran after it: the run computed nothing.
  const asked = t.items.map((i) => i.kind).lastIndexOf("clarify");
  const question = t.items[asked];
  const unanswered = question?.kind === "clarify" && question.ended ? UNANSWERED[question.ended.resolution] : undefined;
  if (t.status === RunStatus.SUCCEEDED && unanswered && !t.items.slice(asked + 1).some((i) => i.kind === "tool")) return unanswered;
  const state = runStateText(t.status, t.outcome);
  return t.error ? `${state} — ${t.error}` : state;
}

/** What a finished run came to, one word per outcome, as the CLI and the SDKs say it. */
export const OUTCOME_WORDS: Record<RunOutcome, string> = {
  [RunOutcome.UNSPECIFIED]: "",
  [RunOutcome.ANSWERED]: "answered",
  [RunOutcome.ASKED_BACK]: "asked back",
  [RunOutcome.NOT_UNDERSTOOD]: "not understood",
  [RunOutcome.DENIED]: "denied",
  [RunOutcome.EXPIRED]: "expired",
  [RunOutcome.CANCELLED]: "cancelled",
  [RunOutcome.FAILED]: "failed",
};

/** A run in a word or two: its outcome once it is over ("not understood", "denied"), else
 *  where it is ("running", "awaiting confirmation"). */
export function runStateText(status: RunStatus, outcome: RunOutcome | undefined): string {
  if (outcome) return OUTCOME_WORDS[outcome];
  return RunStatus[status].toLowerCase().replaceAll("_", " ");
}

/** The class a run's state is drawn with ("not-understood", "running"). */
export function runStateClass(status: RunStatus, outcome: RunOutcome | undefined): string {
  return runStateText(status, outcome).replaceAll(" ", "-");
}

/** Token usage, only when a model was used (the offline planner calls none). */
export function usageText(u: Usage | undefined): string | undefined {
  if (!u) return undefined;
  const tokens = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  if (u.modelCalls === 0 && tokens === 0n) return undefined;
  const calls = `${u.modelCalls} model call${u.modelCalls === 1 ? "" : "s"}`;
  return `${calls} · ${count(u.inputTokens)} in / ${count(u.outputTokens)} out tokens${u.partial ? " (estimated)" : ""}`;
}
