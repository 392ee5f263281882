// A small Markdown renderer for answers and confirmation texts: paragraphs (a single newline is a
// line break), headings, bullet and numbered lists, quotes, fenced code, pipe tables, rules, and
// inline code, bold, italic and links. It builds React elements only — never HTML strings — so
// nothing in a model's text or a dataset's cells can become markup or script; a link keeps its
// href only for http(s), mailto and the app's own pages — `/runs/run_…`, or the old `#/runs/run_…`
// form — which open in the app (a `javascript:` link stays text).
// Stretches of the source (`marks`, e.g. an answer's numbers and where they came from) are wrapped
// in spans where they show as plain text.
import { Fragment, type ReactNode } from "react";
import { AppLink, appPath } from "../lib/links";
import { ScrollBox } from "./ScrollBox";

const INLINE = new RegExp(
  [
    "`([^`\\n]+)`", // 1: code
    "\\*\\*(?=\\S)([\\s\\S]+?)(?<=\\S)\\*\\*", // 2: bold
    "(?<!\\w)__(?=\\S)([\\s\\S]+?)(?<=\\S)__(?!\\w)", // 3: bold
    "\\*(?=[^\\s*])([\\s\\S]+?)(?<=[^\\s*])\\*", // 4: italic
    "(?<!\\w)_(?=[^\\s_])([\\s\\S]+?)(?<=[^\\s_])_(?!\\w)", // 5: italic (never inside snake_case)
    "\\[([^\\]\\n]+)\\]\\(([^()\\s]+)\\)", // 6, 7: link
  ].join("|"),
  "g",
);

/** Whether a link target may become an href: another site's (opened in a new tab) or a mail. */
function externalHref(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url);
}

/** A stretch of the source to wrap in a span: offsets in Unicode code points, end exclusive. */
export interface TextMark {
  start: number;
  end: number;
  className: string;
  title: string;
}

/** Plain text as rendered, with any marks inside it wrapped. */
type Wrap = (segment: string, key: string) => ReactNode[];

const plain: Wrap = (segment) => [segment];

/** Offsets of each code point of `text` in `normalized` (its CRLF and CR turned into LF): marks
 *  count code points of what was written, the renderer slices UTF-16 units of what it splits. */
function unitOffsets(text: string): number[] {
  const at: number[] = [];
  let u = 0;
  let i = 0;
  for (const ch of text) {
    at.push(u);
    // A CR before an LF is dropped by the normalization; any other code point keeps its length.
    if (!(ch === "\r" && text[i + 1] === "\n")) u += ch.length;
    i += ch.length;
  }
  at.push(u);
  return at;
}

/** A Wrap for one rendering of `normalized`. Every plain segment the renderer shows is a verbatim
 *  slice of the source, shown in source order, so each is looked for from where the last one
 *  ended; a mark is wrapped when it lies whole inside one segment (one split by markup is not). */
function marker(text: string, normalized: string, marks: TextMark[] | undefined): Wrap {
  if (!marks || marks.length === 0) return plain;
  const at = unitOffsets(text);
  const last = at.length - 1;
  const spans = marks
    .filter((m) => m.start < m.end && m.end <= last)
    .map((m) => ({ ...m, from: at[m.start], to: at[m.end] }))
    .sort((a, b) => a.from - b.from);
  let cursor = 0;
  return (segment, key) => {
    const found = segment === "" ? -1 : normalized.indexOf(segment, cursor);
    if (found < 0) return [segment];
    cursor = found + segment.length;
    const out: ReactNode[] = [];
    let pos = found;
    for (const s of spans) {
      if (s.from < pos || s.to > cursor) continue;
      if (s.from > pos) out.push(normalized.slice(pos, s.from));
      out.push(<span key={`${key}.m${s.from}`} className={s.className} title={s.title}>{normalized.slice(s.from, s.to)}</span>);
      pos = s.to;
    }
    if (pos < cursor) out.push(normalized.slice(pos, cursor));
    return out;
  };
}

function inline(text: string, key: string, wrap: Wrap): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    const k = `${key}.${n++}`;
    if (at > last) out.push(...wrap(text.slice(last, at), `${k}p`));
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined || m[3] !== undefined) out.push(<strong key={k}>{inline(m[2] ?? m[3], k, wrap)}</strong>);
    else if (m[4] !== undefined || m[5] !== undefined) out.push(<em key={k}>{inline(m[4] ?? m[5], k, wrap)}</em>);
    else if (externalHref(m[7])) {
      out.push(
        <a key={k} href={m[7]} target="_blank" rel="noopener noreferrer">
          {inline(m[6], k, wrap)}
        </a>,
      );
    } else if (appPath(m[7]) !== undefined) {
      out.push(<AppLink key={k} to={appPath(m[7])!}>{inline(m[6], k, wrap)}</AppLink>);
    } else out.push(<Fragment key={k}>{inline(m[6], k, wrap)}</Fragment>);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(...wrap(text.slice(last), `${key}.${n}p`));
  return out;
}

/** Lines joined by line breaks, each with its inline markup. */
function lines(ls: string[], key: string, wrap: Wrap): ReactNode[] {
  return ls.flatMap((l, i) => (i === 0 ? inline(l, `${key}.${i}`, wrap) : [<br key={`${key}.br${i}`} />, ...inline(l, `${key}.${i}`, wrap)]));
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const FENCE = /^\s*```/;
const HEADING = /^\s*(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^\s*>\s?(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function cells(row: string): string[] {
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

function isBlockStart(line: string, next: string | undefined): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || BULLET.test(line) || NUMBERED.test(line) || QUOTE.test(line) || (line.includes("|") && next !== undefined && TABLE_SEPARATOR.test(next));
}

export function Markdown({ text, className, marks }: { text: string; className?: string; marks?: TextMark[] }) {
  const normalized = text.replace(/\r\n?/g, "\n");
  const wrap = marker(text, normalized, marks);
  const src = normalized.split("\n");
  const blocks: ReactNode[] = [];
  let i = 0;
  while (i < src.length) {
    const line = src[i];
    const key = `b${i}`;
    if (line.trim() === "") {
      i++;
    } else if (FENCE.test(line)) {
      const body: string[] = [];
      i++;
      while (i < src.length && !FENCE.test(src[i])) body.push(src[i++]);
      i++; // the closing fence (or the end of a text still streaming)
      blocks.push(<pre key={key} className="md-code"><code>{body.join("\n")}</code></pre>);
    } else if (RULE.test(line)) {
      blocks.push(<hr key={key} />);
      i++;
    } else if (HEADING.test(line)) {
      const [, , title] = HEADING.exec(line)!;
      blocks.push(<p key={key} className="md-heading"><strong>{inline(title, key, wrap)}</strong></p>);
      i++;
    } else if (line.includes("|") && i + 1 < src.length && TABLE_SEPARATOR.test(src[i + 1])) {
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < src.length && src[i].includes("|") && src[i].trim() !== "") rows.push(cells(src[i++]));
      blocks.push(
        <ScrollBox key={key} label="Table" className="md-table">
          <table>
            <thead><tr>{head.map((c, j) => <th key={j}>{inline(c, `${key}.h${j}`, wrap)}</th>)}</tr></thead>
            <tbody>{rows.map((r, ri) => <tr key={ri}>{head.map((_, j) => <td key={j}>{inline(r[j] ?? "", `${key}.${ri}.${j}`, wrap)}</td>)}</tr>)}</tbody>
          </table>
        </ScrollBox>,
      );
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      const ordered = !BULLET.test(line);
      const pattern = ordered ? NUMBERED : BULLET;
      const start = ordered ? Number(NUMBERED.exec(line)![1]) : 1;
      const items: string[][] = [];
      while (i < src.length) {
        const m = pattern.exec(src[i]);
        if (m) items.push([ordered ? m[2] : m[1]]);
        else if (src[i].trim() !== "" && /^\s{2,}/.test(src[i]) && items.length > 0) items[items.length - 1].push(src[i].trim());
        else break;
        i++;
      }
      const children = items.map((it, j) => <li key={j}>{lines(it, `${key}.${j}`, wrap)}</li>);
      blocks.push(ordered ? <ol key={key} start={start}>{children}</ol> : <ul key={key}>{children}</ul>);
    } else if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < src.length && QUOTE.test(src[i])) quoted.push(QUOTE.exec(src[i++])![1]);
      blocks.push(<blockquote key={key}>{lines(quoted, key, wrap)}</blockquote>);
    } else {
      const para: string[] = [line];
      i++;
      while (i < src.length && src[i].trim() !== "" && !isBlockStart(src[i], src[i + 1])) para.push(src[i++]);
      blocks.push(<p key={key}>{lines(para, key, wrap)}</p>);
    }
  }
  return <div className={`md ${className ?? ""}`.trim()}>{blocks}</div>;
}
