// SQL as the server ran it: highlighted by highlight.js's SQL grammar (through lowlight, whose
// syntax tree becomes React elements with hast-util-to-jsx-runtime — no HTML string is ever
// injected), with a Copy button that says when the text is on the clipboard.
import { useState } from "react";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { toJsxRuntime } from "hast-util-to-jsx-runtime";
import { createLowlight } from "lowlight";
import sql from "highlight.js/lib/languages/sql";

const lowlight = createLowlight({ sql });

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
      <pre className="sql" aria-label={label}><code>{toJsxRuntime(lowlight.highlight("sql", text), { Fragment, jsx, jsxs })}</code></pre>
      <button type="button" className="copy" onClick={() => void copy()} aria-label={label ? `Copy ${label.toLowerCase()}` : "Copy the SQL"}>
        {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
      </button>
      <span className="sr-only" role="status">{copied === "copied" ? "The SQL is on the clipboard." : copied === "failed" ? "The browser did not allow copying." : ""}</span>
    </div>
  );
}
