// SQL as the server ran it: highlighted by highlight.js's SQL grammar (through lowlight, whose
// syntax tree is rendered here as React elements — no HTML string is ever injected), with a Copy
// button that says when the text is on the clipboard.
import { Fragment, useState, type ReactNode } from "react";
import { createLowlight } from "lowlight";
import sql from "highlight.js/lib/languages/sql";
import type { Element, ElementContent, Root } from "hast";

const lowlight = createLowlight({ sql });

function render(nodes: (Root | ElementContent)[], key: string): ReactNode[] {
  return nodes.map((n, i) => {
    const k = `${key}.${i}`;
    if (n.type === "text") return <Fragment key={k}>{n.value}</Fragment>;
    if (n.type !== "element" && n.type !== "root") return null;
    const children = render((n as Element | Root).children as ElementContent[], k);
    if (n.type === "root") return <Fragment key={k}>{children}</Fragment>;
    const names = n.properties?.className;
    return <span key={k} className={Array.isArray(names) ? names.join(" ") : undefined}>{children}</span>;
  });
}

export function SqlBlock({ sql: text, label }: { sql: string; label?: string }) {
  const [copied, setCopied] = useState<"" | "copied" | "failed">("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied(""), 2000);
  };
  return (
    <div className="sql-block">
      <pre className="sql" aria-label={label}><code>{render([lowlight.highlight("sql", text)], "sql")}</code></pre>
      <button type="button" className="copy" onClick={() => void copy()} aria-label={label ? `Copy ${label.toLowerCase()}` : "Copy the SQL"}>
        {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
      </button>
      <span className="sr-only" role="status">{copied === "copied" ? "The SQL is on the clipboard." : copied === "failed" ? "The browser did not allow copying." : ""}</span>
    </div>
  );
}
