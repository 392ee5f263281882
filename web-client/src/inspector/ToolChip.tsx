// A tool call's chip: where it is, in words that are true at that moment ("Reading rows…",
// "Waiting for your approval", "✓ Run SQL", "Denied — nothing changed"), and where an external
// server's tool comes from. A question back waits for an answer, not an approval, and a
// dismissed one denied nothing.
import { ConfirmationResolution, ToolPhase } from "@aware/client";
import { UNANSWERED } from "../lib/outcome";
import { useToolWords } from "../lib/queries/capabilities";
import type { Item } from "../lib/transcript";

function chip(item: Extract<Item, { kind: "tool" }>, asks: boolean, activity: string | undefined): { text: string; className: string } {
  if (asks) {
    switch (item.phase) {
      case ToolPhase.AWAITING_CONFIRMATION:
        return { text: "Waiting for your answer", className: "waiting" };
      case ToolPhase.DENIED:
        return { text: UNANSWERED[ConfirmationResolution.DENIED]!, className: "stopped" };
      case ToolPhase.EXPIRED:
        return { text: UNANSWERED[ConfirmationResolution.EXPIRED]!, className: "stopped" };
    }
  }
  switch (item.phase) {
    case ToolPhase.AWAITING_CONFIRMATION:
      return { text: "Waiting for your approval", className: "waiting" };
    case ToolPhase.DENIED:
      return { text: "Denied — nothing changed", className: "stopped" };
    case ToolPhase.EXPIRED:
      return { text: "Expired — nothing changed", className: "stopped" };
    case ToolPhase.CANCELLED:
      return { text: "Cancelled", className: "stopped" };
    case ToolPhase.FAILED:
      return { text: `✗ ${item.title}`, className: "failed" };
    case ToolPhase.SUCCEEDED:
      return { text: `✓ ${item.title}`, className: "done" };
    default:
      return { text: activity ?? `${item.title}…`, className: "active" };
  }
}

/** `asks`: the call is a question back (`ask_user`). */
export function ToolChip({ item, asks }: { item: Extract<Item, { kind: "tool" }>; asks: boolean }) {
  const words = useToolWords();
  const c = chip(item, asks, words.activity(item.name));
  return (
    <span className={`chip ${c.className}`}>
      {c.text}
      {item.from && <span className="provenance"> · {item.from}</span>}
    </span>
  );
}
