// A small Markdown renderer for answers and confirmation texts: paragraphs (a single newline is a
// line break), headings, bullet and numbered lists, quotes, fenced code, pipe tables, rules, and
// inline code, bold, italic and links. It builds React elements only — never HTML strings — so
// nothing in a model's text or a dataset's cells can become markup or script; a link keeps its
// href only for http(s), mailto and the app's own `#/` routes (a `javascript:` link stays text).
import { Fragment, type ReactNode } from "react";

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

/** Whether a link target may become an href. */
export function safeHref(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url) || url.startsWith("#/");
}

function inline(text: string, key: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const k = `${key}.${n++}`;
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined || m[3] !== undefined) out.push(<strong key={k}>{inline(m[2] ?? m[3], k)}</strong>);
    else if (m[4] !== undefined || m[5] !== undefined) out.push(<em key={k}>{inline(m[4] ?? m[5], k)}</em>);
    else if (safeHref(m[7])) {
      const external = !m[7].startsWith("#/");
      out.push(
        <a key={k} href={m[7]} {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
          {inline(m[6], k)}
        </a>,
      );
    } else out.push(<Fragment key={k}>{inline(m[6], k)}</Fragment>);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Lines joined by line breaks, each with its inline markup. */
function lines(ls: string[], key: string): ReactNode[] {
  return ls.flatMap((l, i) => (i === 0 ? inline(l, `${key}.${i}`) : [<br key={`${key}.br${i}`} />, ...inline(l, `${key}.${i}`)]));
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

export function Markdown({ text, className }: { text: string; className?: string }) {
  const src = text.replace(/\r\n?/g, "\n").split("\n");
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
      blocks.push(<p key={key} className="md-heading"><strong>{inline(title, key)}</strong></p>);
      i++;
    } else if (line.includes("|") && i + 1 < src.length && TABLE_SEPARATOR.test(src[i + 1])) {
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < src.length && src[i].includes("|") && src[i].trim() !== "") rows.push(cells(src[i++]));
      blocks.push(
        <div key={key} className="table-scroll md-table">
          <table>
            <thead><tr>{head.map((c, j) => <th key={j}>{inline(c, `${key}.h${j}`)}</th>)}</tr></thead>
            <tbody>{rows.map((r, ri) => <tr key={ri}>{head.map((_, j) => <td key={j}>{inline(r[j] ?? "", `${key}.${ri}.${j}`)}</td>)}</tr>)}</tbody>
          </table>
        </div>,
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
      const children = items.map((it, j) => <li key={j}>{lines(it, `${key}.${j}`)}</li>);
      blocks.push(ordered ? <ol key={key} start={start}>{children}</ol> : <ul key={key}>{children}</ul>);
    } else if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < src.length && QUOTE.test(src[i])) quoted.push(QUOTE.exec(src[i++])![1]);
      blocks.push(<blockquote key={key}>{lines(quoted, key)}</blockquote>);
    } else {
      const para: string[] = [line];
      i++;
      while (i < src.length && src[i].trim() !== "" && !isBlockStart(src[i], src[i + 1])) para.push(src[i++]);
      blocks.push(<p key={key}>{lines(para, key)}</p>);
    }
  }
  return <div className={`md ${className ?? ""}`.trim()}>{blocks}</div>;
}
