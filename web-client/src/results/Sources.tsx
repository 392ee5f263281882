// Knowledge documents in a run: the passages a `search_knowledge` call retrieved (a compact list in
// the run's steps), and under an answer that used documents its Sources — each passage it cites,
// in the order it cites them, with the document's title, the chunk id, the heading and the passage
// itself behind a disclosure — or, when the check of its citations failed, a warning that says so:
// no passage cited of those it retrieved, or a chunk id it never retrieved. The answer's own
// `[handbook::003]` citations open the source they name. Also how a document is named where
// datasets are listed ("Markdown document", passages rather than rows).
import { useEffect, type MouseEvent, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import {
  CitationStatus,
  citationMentions,
  DatasetFormat,
  type CitationCheck,
  type KnowledgeChunk,
  type KnowledgeHits,
  type ToolResult,
} from "@aware/client";
import { count } from "../lib/format";
import { AppLink } from "../lib/links";
import type { TextMark } from "./Markdown";

/** Whether a dataset is a knowledge document: read through its passages, not as rows. */
export function isDocument(format: DatasetFormat): boolean {
  return format === DatasetFormat.MARKDOWN || format === DatasetFormat.TEXT;
}

/** A document's kind in words ("Markdown document"); undefined for a table. */
export function documentKind(format: DatasetFormat): string | undefined {
  if (format === DatasetFormat.MARKDOWN) return "Markdown document";
  if (format === DatasetFormat.TEXT) return "Text document";
  return undefined;
}

/** "1 passage", "12 passages". */
export function passagesText(n: bigint | number): string {
  return `${count(n)} passage${n === 1n || n === 1 ? "" : "s"}`;
}

/** A search snippet: escaped text with `<mark>` around matched words. Rendered as text nodes and
 *  <mark> elements, never as HTML, so nothing in a dataset or a document can inject markup. */
export function Snippet({ html }: { html: string }) {
  const unescape = (t: string) =>
    t.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#(0?39|x27);/g, "'").replace(/&amp;/g, "&");
  const parts = html.split(/<mark>(.*?)<\/mark>/g);
  return <>{parts.map((p, i) => (i % 2 === 1 ? <mark key={i}>{unescape(p)}</mark> : <span key={i}>{unescape(p)}</span>))}</>;
}

/** Every passage the run's `search_knowledge` results hold, by chunk id (the first copy of each). */
export function passagesOf(results: ToolResult[]): Map<string, KnowledgeChunk> {
  const passages = new Map<string, KnowledgeChunk>();
  for (const r of results) {
    if (r.rich.case !== "knowledge") continue;
    for (const k of r.rich.value.chunks) if (!passages.has(k.chunkId)) passages.set(k.chunkId, k);
  }
  return passages;
}

/** A `search_knowledge` result in the run's steps: the passages it retrieved, each with its
 *  document, chunk id, heading and best fragment (the query's words marked). */
export function KnowledgeResult({ hits }: { hits: KnowledgeHits }) {
  const n = hits.chunks.length;
  const docs = `${hits.documentsSearched} document${hits.documentsSearched === 1 ? "" : "s"}`;
  return (
    <div className="knowledge-hits" data-testid="knowledge-hits">
      <p className="muted">
        {n === 0 ? `No passage of your ${docs} matches “${hits.query}”` : `${passagesText(n)} for “${hits.query}” from ${docs}`}
        {hits.mode ? ` · ${hits.mode} search` : ""}
        {hits.note ? ` · ${hits.note}` : ""}
      </p>
      {n > 0 && (
        <ol>
          {hits.chunks.map((k) => (
            <li key={k.chunkId} data-chunk-id={k.chunkId}>
              <AppLink className="source-title" to={`/datasets/${k.datasetId}`}>{k.title || k.documentName}</AppLink>
              <span className="muted"> · <code className="chunk-id">{k.chunkId}</code>{k.heading ? ` · ${k.heading}` : ""}</span>
              <p className="snippet"><Snippet html={k.snippet} /></p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** The element id of a cited source (`prefix` keeps two answers citing the same passage apart). */
export function sourceId(prefix: string, chunkId: string): string {
  return `${prefix}-source-${chunkId}`;
}

/** A list in words: "a", "a and b", "a, b and c". */
function listText(xs: string[]): string {
  return xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`;
}

/** What is wrong with an answer's citations, in words; nothing when they hold. */
export function citationWarning(check: CitationCheck): string | undefined {
  switch (check.status) {
    case CitationStatus.MISSING_CITATIONS: {
      const n = check.retrieved.length;
      return `This answer cites none of the ${n === 1 ? "1 passage" : `${n} passages`} it retrieved — it is not backed by your documents.`;
    }
    case CitationStatus.INVALID_CITATION: {
      const one = check.invalid.length === 1;
      return `This answer cites ${listText(check.invalid)}, which ${one ? "was" : "were"} never retrieved — ${one ? "that claim is" : "those claims are"} not backed by your documents.`;
    }
    default:
      return undefined;
  }
}

/** Opens a cited source's disclosure and brings it into view. */
export function openSource(prefix: string, chunkId: string) {
  const details = document.getElementById(sourceId(prefix, chunkId));
  if (!(details instanceof HTMLDetailsElement)) return;
  details.open = true;
  details.scrollIntoView({ block: "nearest", behavior: "smooth" });
  details.querySelector("summary")?.focus();
}

/** Under an answer that used documents: the passages it cites, or why there are none to show. */
export function Sources({
  check,
  passages,
  prefix,
}: {
  check: CitationCheck;
  passages: Map<string, KnowledgeChunk>;
  prefix: string;
}) {
  const invalid = new Set(check.invalid);
  const cited = check.cited.flatMap((id) => (invalid.has(id) ? [] : passages.get(id) ?? []));
  const warning = citationWarning(check);
  const none = check.status === CitationStatus.NO_EVIDENCE || check.retrieved.length === 0;
  let body: ReactNode;
  if (cited.length > 0) {
    body = (
      <ol>
        {cited.map((k) => (
          <li key={k.chunkId} data-chunk-id={k.chunkId}>
            <details id={sourceId(prefix, k.chunkId)}>
              <summary>
                <span className="source-title">{k.title || k.documentName}</span> <code className="chunk-id">{k.chunkId}</code>
                {k.heading && <span className="source-heading"> · {k.heading}</span>}
              </summary>
              <p className="passage">{k.text}</p>
              <p className="muted">
                From{" "}
                <AppLink to={`/datasets/${k.datasetId}`}>{k.documentName || k.title}</AppLink>
              </p>
            </details>
          </li>
        ))}
      </ol>
    );
  } else if (none || check.status !== CitationStatus.MISSING_CITATIONS) {
    body = <p className="muted no-sources">No sources were used for this answer.</p>;
  }
  return (
    <section className="sources" aria-labelledby={`${prefix}-sources`} data-testid="sources" data-status={CitationStatus[check.status]}>
      <h3 id={`${prefix}-sources`}>Sources</h3>
      {warning && <p className="citation-warning" data-testid="citation-warning">⚠ {warning}</p>}
      {body}
    </section>
  );
}

/** The answer's `[chunk id]` citations as marks on its text: each names its source, and one that
 *  was never retrieved is marked as such. Offsets are in code points, as marks are. */
export function citationMarks(text: string, passages: Map<string, KnowledgeChunk>, check: CitationCheck | undefined): TextMark[] {
  const invalid = new Set(check?.invalid);
  return citationMentions(text).map((m) => {
    const bad = m.ids.filter((id) => invalid.has(id) || (check !== undefined && !passages.has(id)));
    const named = m.ids.map((id) => {
      const k = passages.get(id);
      return k ? `${k.title || k.documentName}${k.heading ? ` · ${k.heading}` : ""} (${id})` : `${id} (never retrieved)`;
    });
    return {
      start: Array.from(text.slice(0, m.start)).length,
      end: Array.from(text.slice(0, m.end)).length,
      className: bad.length > 0 ? "citation invalid" : "citation",
      title: `Source: ${named.join("; ")}`,
    };
  });
}

/** The citation marks of an answer under `root` as links to their sources: focusable, named, and
 *  opened by click, Enter or Space. The marks are plain spans of the Markdown renderer, so they
 *  get their role here, after each render; one found invalid once the answer is checked (it was
 *  a link while the answer streamed) loses it. */
export function useCitationLinks(root: RefObject<HTMLElement | null>) {
  useEffect(() => {
    root.current?.querySelectorAll<HTMLElement>("span.citation").forEach((span) => {
      if (span.classList.contains("invalid")) {
        span.removeAttribute("role");
        span.removeAttribute("tabindex");
        span.removeAttribute("aria-label");
        return;
      }
      span.setAttribute("role", "link");
      span.tabIndex = 0;
      span.setAttribute("aria-label", span.title.replace(/^Source: /, "Open the source: "));
    });
  });
}

/** The chunk id a click or key press on a citation mark names (its first), if it was on one. */
function citedAt(target: EventTarget): string | undefined {
  if (!(target instanceof HTMLElement)) return undefined;
  const span = target.closest("span.citation:not(.invalid)");
  return span ? citationMentions(span.textContent ?? "")[0]?.ids[0] : undefined;
}

/** Handlers for the element around an answer: a citation mark opens its source. */
export function citationHandlers(prefix: string) {
  return {
    onClick: (e: MouseEvent) => {
      const id = citedAt(e.target);
      if (id) openSource(prefix, id);
    },
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      const id = citedAt(e.target);
      if (!id) return;
      e.preventDefault();
      openSource(prefix, id);
    },
  };
}
