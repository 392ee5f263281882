// Answers and confirmation texts as Markdown (react-markdown, with GFM's tables, strikethrough and
// bare links, and a single newline as a line break). It builds React elements only: raw HTML in
// the text is shown as text (no rehype-raw), an image shows its description and is never loaded
// (a model's text must not make the browser fetch an address), and a link keeps its href only
// for http(s), mailto and the app's own pages — `/runs/run_…`, or the old `#/runs/run_…` form —
// which open in the app keeping `?thread=` (a `javascript:` link stays text). Headings are bold
// paragraphs, so an answer never adds to the page's outline. Stretches of the source (`marks`,
// e.g. an answer's numbers and where they came from) are wrapped in spans (`remarkMarks.ts`).
import type { ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";
import { AppLink, appPath } from "../lib/links";
import { remarkMarks, type TextMark } from "./remarkMarks";
import { ScrollBox } from "./ScrollBox";

export type { TextMark } from "./remarkMarks";

/** Whether a link target may become an href: another site's (opened in a new tab) or a mail. */
function externalHref(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url);
}

/** Every URL in the text (links, images) passes here: anything but the allowed ones is dropped. */
function allowedUrl(url: string): string {
  return externalHref(url) || appPath(url) !== undefined ? url : "";
}

function Heading({ className, children }: { className?: string; children?: ReactNode }) {
  return (
    <p className={className ? `md-heading ${className}` : "md-heading"}>
      <strong>{children}</strong>
    </p>
  );
}

const components: Components = {
  h1: Heading,
  h2: Heading,
  h3: Heading,
  h4: Heading,
  h5: Heading,
  h6: Heading,
  a({ href, children }) {
    if (!href) return <>{children}</>;
    const path = appPath(href);
    if (path !== undefined) return <AppLink to={path}>{children}</AppLink>;
    return (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  },
  img: ({ alt }) => (alt ? <>{alt}</> : null),
  // A task list's box (`- [x] done`), named for screen readers and axe.
  input: ({ node: _node, ...props }) => <input {...props} aria-label={props.checked ? "done" : "not done"} />,
  pre: ({ node: _node, ...props }) => <pre className="md-code" {...props} />,
  table: ({ node: _node, ...props }) => (
    <ScrollBox label="Table" className="md-table">
      <table {...props} />
    </ScrollBox>
  ),
};

// A footnote's way back to where it is cited is a link to an id on the page, which stays text
// here (two answers' footnotes would share ids): left out rather than shown as a dead "↩".
const TO_HAST: Options["remarkRehypeOptions"] = { footnoteBackContent: () => [] };

export function Markdown({ text, className, marks }: { text: string; className?: string; marks?: TextMark[] }) {
  // The marks before the line breaks: those split text into pieces without a source position.
  const plugins: Options["remarkPlugins"] =
    marks && marks.length > 0 ? [remarkGfm, [remarkMarks, marks], remarkBreaks] : [remarkGfm, remarkBreaks];
  return (
    <div className={`md ${className ?? ""}`.trim()}>
      <ReactMarkdown remarkPlugins={plugins} remarkRehypeOptions={TO_HAST} components={components} urlTransform={allowedUrl}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
