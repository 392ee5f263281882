// Marks over an answer's text (its numbers and where they came from, its citations) for the
// Markdown renderer: a remark plugin that wraps the characters a mark covers in a span with the
// mark's class and title. Marks count code points of the text as written — the Markdown source —
// while the tree holds text as shown, without its syntax (`**`, `\`, `&amp;`). Each shown
// character is traced back to where it was written: the parser's positions say where a node's
// source is, and inside it the characters are matched in order, skipping what is syntax. Text the
// parser's own transforms made (GFM's bare links) has no position: it is traced within its
// nearest node that has one. So a mark inside bold text, a list item or a table cell is drawn,
// and one whose stretch spans formatting still marks each character of text within it.
import type { Parent, PhrasingContent, Root, RootContent, Text } from "mdast";

/** A stretch of the source to wrap in a span: offsets in Unicode code points, end exclusive. */
export interface TextMark {
  start: number;
  end: number;
  className: string;
  title: string;
}

/** A mark in UTF-16 units of the source, as the parser's positions count. */
interface Span {
  from: number;
  to: number;
  mark: TextMark;
}

/** The marks in source units, in order; one that overlaps an earlier one is left out. */
function spansOf(source: string, marks: TextMark[]): Span[] {
  const unit: number[] = [];
  let u = 0;
  for (const ch of source) {
    unit.push(u);
    u += ch.length;
  }
  unit.push(u);
  const spans: Span[] = [];
  for (const mark of [...marks].sort((a, b) => a.start - b.start)) {
    if (mark.start < 0 || mark.start >= mark.end || mark.end >= unit.length) continue;
    const span = { from: unit[mark.start], to: unit[mark.end], mark };
    if (spans.length > 0 && span.from < spans[spans.length - 1].to) continue;
    spans.push(span);
  }
  return spans;
}

const REFERENCE = /&(?:#\d{1,7}|#[xX][\da-fA-F]{1,6}|[A-Za-z][A-Za-z\d]{1,31});/y;
const SPACE = /\s/;

/** Where each UTF-16 unit of `shown` was written in `source`, looked for in order from `from`
 *  up to `to`; also where the search ended. The offsets never go down. */
function trace(shown: string, source: string, from: number, to: number): { at: number[]; end: number } {
  const at: number[] = [];
  let s = from;
  for (let i = 0; i < shown.length; i++) {
    const c = shown[i];
    const code = c.charCodeAt(0);
    // The second half of a character decoded from a reference (`&#x1F600;`): written with it.
    if (code >= 0xdc00 && code <= 0xdfff && source[s] !== c && i > 0) {
      at.push(at[i - 1]);
      continue;
    }
    REFERENCE.lastIndex = s;
    const reference = source[s] === "&" ? REFERENCE.exec(source)?.[0] : undefined;
    if (reference && s + reference.length <= to && !shown.startsWith(reference, i)) {
      // `&amp;` shows as `&`: one character written as the whole reference.
      at.push(s);
      s += reference.length;
    } else if (source[s] === c) {
      at.push(s++);
    } else if (source[s] === "\\" && source[s + 1] === c) {
      at.push(s + 1);
      s += 2;
    } else if (SPACE.test(c) && SPACE.test(source[s] ?? "")) {
      // A line ending shown as a space, or the other way round.
      at.push(s++);
    } else {
      // Syntax before it (`**`, `](https://…)`, a line's indent): the next place it was written.
      const k = source.indexOf(c, s);
      if (k >= 0 && k < to) {
        at.push(k);
        s = k + 1;
      } else at.push(s); // Shown but not written here: it marks nothing.
    }
  }
  return { at, end: s };
}

/** `text` cut where marks start and end, the marked pieces wrapped in a span. */
function cut(text: Text, at: number[], spans: Span[]): PhrasingContent[] {
  const value = text.value;
  if (value.length === 0) return [text];
  // The span each unit falls in (an index into `spans`), or -1.
  const inside: number[] = [];
  let j = 0;
  for (const offset of at) {
    while (j < spans.length && spans[j].to <= offset) j++;
    inside.push(j < spans.length && spans[j].from <= offset ? j : -1);
  }
  if (inside.every((x) => x === -1)) return [text];
  const pieces: PhrasingContent[] = [];
  let start = 0;
  for (let i = 1; i <= value.length; i++) {
    if (i < value.length && inside[i] === inside[start]) continue;
    const piece: Text = { type: "text", value: value.slice(start, i) };
    const span = inside[start] === -1 ? undefined : spans[inside[start]].mark;
    pieces.push(
      span
        ? { type: "textMark", data: { hName: "span", hProperties: { className: span.className.split(/\s+/), title: span.title } }, children: [piece] }
        : piece,
    );
    start = i;
  }
  return pieces;
}

/** A marked stretch of text; shown as a span (`data.hName`). */
export interface TextMarkNode extends Parent {
  type: "textMark";
  children: PhrasingContent[];
}

declare module "mdast" {
  interface PhrasingContentMap {
    textMark: TextMarkNode;
  }
  interface RootContentMap {
    textMark: TextMarkNode;
  }
}

/** Wraps the stretches of `source` that `marks` cover, in the tree parsed from it. */
export function markTree(tree: Root, source: string, marks: TextMark[]) {
  const spans = spansOf(source, marks);
  if (spans.length === 0) return;
  // How far the source has been read: the tree is in source order.
  let cursor = 0;
  const visit = (parent: Parent, limit: number) => {
    const children: RootContent[] = [];
    for (const child of parent.children) {
      const start = child.position?.start.offset;
      const end = child.position?.end.offset;
      if (start !== undefined) cursor = Math.max(cursor, start);
      if (child.type === "text") {
        const { at, end: read } = trace(child.value, source, cursor, end ?? limit);
        cursor = read;
        children.push(...cut(child, at, spans));
      } else {
        // Code, raw HTML, images and definitions hold no text to mark: only their extent counts.
        if ("children" in child) visit(child, end ?? limit);
        children.push(child);
      }
      if (end !== undefined) cursor = Math.max(cursor, end);
    }
    parent.children = children;
  };
  visit(tree, source.length);
}

/** The remark plugin: `marks` over the source the tree was parsed from. */
export function remarkMarks(marks: TextMark[]) {
  return (tree: Root, file: { value: unknown }) => markTree(tree, String(file.value), marks);
}
