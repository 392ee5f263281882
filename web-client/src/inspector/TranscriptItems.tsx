// A run's transcript on screen — the same for a run streaming in the assistant, one reopened with
// its conversation and one in the run inspector: answer text (Markdown), a chip per tool call,
// rich results, confirmation cards, questions back, what went into or out of memory, where the
// answer's numbers came from, and the documents' passages it cites.
import { Fragment, useId, useRef } from "react";
import type { GroundedNumber, Grounding } from "@aware/client";
import { ClarificationCard } from "../cards/ClarificationCard";
import { ConfirmCard } from "../cards/ConfirmCard";
import { AppLink } from "../lib/links";
import { STOPPED } from "../lib/outcome";
import type { Item } from "../lib/transcript";
import { Markdown, type TextMark } from "../results/Markdown";
import { RichResult } from "../results/RichResult";
import { citationHandlers, citationMarks, passagesOf, Sources, useCitationLinks } from "../results/Sources";
import { ToolChip } from "./ToolChip";

/** A grounded number's tooltip: the tool result, the place in it and the value there. */
function sourceText(n: GroundedNumber): string {
  const s = n.source;
  if (!s) return "No tool result of this run holds this number";
  // The question (seq 0) is no tool's result: it has no tool name.
  return `From ${s.toolName ? `${s.toolName}, ` : ""}${s.location}: ${s.value}`;
}

/** The answer's numbers as marks on its text, grounded or not. Each is checked against the text it
 *  claims to be at, so a map that does not fit the text marks nothing rather than the wrong place. */
/** A year as written ("2024"): a date's part, not a figure worth a "where from" mark. */
const YEAR = /^(1[89]|20|21)\d\d$/;

function numberMarks(text: string, g: Grounding | undefined): TextMark[] | undefined {
  if (!g) return undefined;
  const points = Array.from(text);
  return g.numbers
    .filter((n) => points.slice(n.start, n.end).join("") === n.text)
    // A grounded year is not underlined (every "in 2024" would be); an ungrounded one still is.
    .filter((n) => !(n.source && YEAR.test(n.text)))
    .map((n) => ({ start: n.start, end: n.end, className: n.source ? "grounded" : "ungrounded", title: sourceText(n) }));
}

export function TranscriptItems({ items }: { items: Item[] }) {
  const stopped = new Set(items.filter((i) => i.kind === "tool" && STOPPED.has(i.phase)).map((i) => i.id));
  const asks = new Set(items.flatMap((i) => (i.kind === "clarify" ? [i.q.toolCallId] : [])));
  // The grounding's offsets are into the run's final answer: the last text.
  const grounding = items.find((i): i is Extract<Item, { kind: "grounding" }> => i.kind === "grounding")?.grounding;
  const answer = items.map((i) => i.kind).lastIndexOf("text");
  // The passages the run's document searches returned: its answer's sources and citations.
  const results = items.flatMap((i) => (i.kind === "result" ? [i.result] : []));
  const searched = results.some((r) => r.rich.case === "knowledge") || grounding?.citations !== undefined;
  const passages = passagesOf(results);
  const prefix = useId();
  const cited = useRef<HTMLDivElement>(null);
  useCitationLinks(cited);
  return (
    <>
      {items.map((item, at) => {
        if (item.kind === "result" && stopped.has(item.id) && item.result.rich.case === undefined) return null;
        switch (item.kind) {
          case "text": {
            if (at !== answer) return <Markdown key={"t" + item.id} className="answer" text={item.text} />;
            const citations = searched ? citationMarks(item.text, passages, grounding?.citations) : [];
            const marks = [...(numberMarks(item.text, grounding) ?? []), ...citations];
            const shown = <Markdown key={"t" + item.id} className="answer" text={item.text} marks={grounding || citations.length ? marks : undefined} />;
            // An answer citing passages: its citations open their sources below it.
            return citations.length ? (
              <div key={"t" + item.id} className="cited-answer" ref={cited} {...citationHandlers(prefix)}>{shown}</div>
            ) : shown;
          }
          case "grounding":
            return (
              <Fragment key={"n" + item.id}>
                {item.grounding.ungrounded > 0 && (
                  <p className="note ungrounded-note">
                    {item.grounding.ungrounded} number{item.grounding.ungrounded === 1 ? "" : "s"} in this answer could not be traced to a result.
                  </p>
                )}
                {item.grounding.citations && <Sources check={item.grounding.citations} passages={passages} prefix={prefix} />}
              </Fragment>
            );
          case "tool":
            return <ToolChip key={"c" + item.id} item={item} asks={asks.has(item.id)} />;
          case "result":
            return <RichResult key={"r" + item.id} result={item.result} />;
          case "denied":
            return (
              <p key={"d" + item.id} className="denied">
                Not allowed — {item.reason}
                {item.from && <span className="provenance"> ({item.from})</span>}
              </p>
            );
          case "confirm":
            return <ConfirmCard key={"k" + item.id} c={item.c} resolution={item.resolution} />;
          case "clarify":
            return <ClarificationCard key={"q" + item.id} q={item.q} ended={item.ended} />;
          case "granted":
            return (
              <p key={"g" + item.id} className="note">
                Allowed without asking: you allowed this for a while (<AppLink to="/memory">Allowed for now</AppLink>).
              </p>
            );
          case "memory":
            return (
              <p key={"m" + item.id} className="note memory-note">
                {item.saved ? "Remembered" : "Forgotten"}: “{item.text}” · <AppLink to="/memory">Memory</AppLink>
              </p>
            );
        }
      })}
    </>
  );
}
