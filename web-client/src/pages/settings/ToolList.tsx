// The tools this caller's assistant may use, aware's own and each external MCP server's (with the
// server's state and the scope each tool is granted under), and what each may do, from the
// server's policy.
import { ConfirmationTier, type GetCapabilitiesResponse, type ToolInfo } from "@aware/client";

/** What a tool may do, in words: read only, or a change — asked first (with a warning for the
 *  elevated tier) or not — and whether it can be undone. */
function toolRisk(t: ToolInfo): string {
  const r = t.risk;
  if (!r || r.readOnly) return "reads only";
  const asks = r.requiresConfirmation ? (r.tier === ConfirmationTier.ELEVATED ? "asks first, with a warning" : "asks first") : "changes without asking";
  return r.destructive ? `${asks} · cannot be undone` : asks;
}

/** What a tool does, for a person: the first sentence of its description (the rest instructs
 *  the model) — up to a colon that starts the model's details —, with `names` as code rather
 *  than raw backticks. A sentence ends at a full stop before a capital ("e.g. `ana`" does not). */
function ForPeople({ description }: { description: string }) {
  const sentence = description.split(/(?<=\.)\s+(?=[A-Z])/)[0] ?? "";
  const first = sentence.length > 90 && sentence.includes(": ") ? `${sentence.split(": ")[0]}.` : sentence;
  const parts = first.split("`");
  return <>{parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : p))}</>;
}

function ToolRow({ tool: t }: { tool: ToolInfo }) {
  return (
    <li>
      <strong>{t.title}</strong> <code>{t.name}</code> <span className="badge">{toolRisk(t)}</span>
      {t.provenance?.scope && <> <span className="badge">scope {t.provenance.scope}</span></>}
      <span className="tool-description"> — <ForPeople description={t.description} /></span>
    </li>
  );
}

export function ToolList({ caps }: { caps: GetCapabilitiesResponse }) {
  const builtin = caps.tools.filter((t) => t.provenance?.source !== "external");
  return (
    <>
      <h2>aware’s tools the assistant may use</h2>
      <ul className="tools">{builtin.map((t) => <ToolRow key={t.name} tool={t} />)}</ul>
      <h2 id="mcp-servers-title">External MCP servers</h2>
      {caps.externalServers.length === 0 && <p className="empty">None registered (<code>[[mcp.servers]]</code> in the configuration).</p>}
      {caps.externalServers.map((s) => {
        const tools = caps.tools.filter((t) => t.provenance?.source === "external" && t.provenance.serverId === s.id);
        return (
          <section key={s.id} className="mcp-server" aria-label={`MCP server ${s.id}`}>
            <h3>
              {s.id} <span className={`badge server-state ${s.state}`}>{s.state}</span>{" "}
              <span className="muted">{s.tools === 1 ? "1 tool" : `${s.tools} tools`}, {tools.length} for you</span>
            </h3>
            {s.detail && <p className="error">{s.detail}</p>}
            {tools.length > 0 && <ul className="tools">{tools.map((t) => <ToolRow key={t.name} tool={t} />)}</ul>}
          </section>
        );
      })}
    </>
  );
}
