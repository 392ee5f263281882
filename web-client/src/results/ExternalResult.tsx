// An external MCP tool's result: its text content as text (never as HTML or Markdown: it is
// another server's data), anything else named by its kind.
export function ExternalResult({ serverId, tool, json }: { serverId: string; tool: string; json: string }) {
  let parts: string[] = [];
  try {
    const result = JSON.parse(json) as { content?: { type?: string; text?: string }[] };
    parts = (result.content ?? []).map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type ?? "content"}]`));
  } catch {
    parts = [json];
  }
  return (
    <figure className="external-result">
      <figcaption className="muted">{tool} · from the external server {serverId}</figcaption>
      <pre>{parts.join("\n")}</pre>
    </figure>
  );
}
