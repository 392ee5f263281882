// A confirmation card: what a tool wants to do in plain words, ELEVATED ones as a warning, with
// Deny, Allow and — where the server allows it — "Allow for 5 minutes", a countdown to its expiry,
// an import's file checklist, and what a dataset change would touch. The same card in a run's
// transcript and in the approvals list; the first answer from anywhere wins.
import { useEffect, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  ConfirmationResolution,
  ConfirmationTier,
  timestampDate,
  type BlastRadius,
  type ConfirmationRequired,
  type SubmitConfirmationResponse,
} from "@aware/client";
import { aware, errorText } from "../lib/api";
import { count, formatBytes } from "../lib/format";
import { RESOLVED } from "../lib/outcome";
import { keys } from "../lib/queryKeys";
import { Markdown } from "../results/Markdown";

/** What a confirmation card needs: from a run's `ConfirmationRequired`, or a `PendingConfirmation`
 *  (which has no arguments). */
export type Confirmable = Pick<ConfirmationRequired, "confirmationId" | "description" | "tier" | "expiresAt" | "toolName" | "grantable"> &
  Partial<Pick<ConfirmationRequired, "argumentsJson" | "resolvedArgumentsJson" | "blastRadius">>;

/** The tools whose ELEVATED cards change who may use aware, and how. */
const ACCOUNT_TOOLS = new Set(["create_user", "change_user_role", "deactivate_user", "reactivate_user", "create_api_key"]);

/** Whether a tool is an external MCP server's (`server.tool`). Its card quotes what that server and
 *  the model chose — the tool's title, every argument — so it is shown as plain text: nothing in
 *  it can pass for aware's own emphasis, headings or links. */
const isExternal = (tool: string) => tool.includes(".");

/** An ELEVATED card's warning, true of what the call does: a delete or a revocation is final; an
 *  account change gives or takes away access. */
function caution(tool: string): string {
  if (tool.startsWith("delete_") || tool === "revoke_api_key") return "this cannot be undone";
  if (ACCOUNT_TOOLS.has(tool)) return "this changes who can use aware, and what they may do";
  return "read it carefully before you allow it";
}

/** How long "Allow for 5 minutes" lets calls of the same kind through without asking. */
export const GRANT_MINUTES = 5;

/** An import's files when its card lists several (`{root, paths}`, as the server resolved the
 *  request — a folder and pattern become the files they list): the person may keep fewer. */
function importFiles(c: Confirmable): { root: string; paths: string[] } | undefined {
  const json = c.resolvedArgumentsJson || c.argumentsJson;
  if (c.toolName !== "import_files" || !json) return undefined;
  try {
    const args = JSON.parse(json) as { root?: unknown; paths?: unknown };
    const paths = Array.isArray(args.paths) && args.paths.every((p) => typeof p === "string") ? (args.paths as string[]) : [];
    return typeof args.root === "string" && paths.length > 1 ? { root: args.root, paths } : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds left before `expires`, ticking while `ticking`. */
function useSecondsLeft(expires: number, ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [ticking]);
  return Math.max(0, Math.ceil((expires - now) / 1000));
}

export function ConfirmCard({ c, resolution }: { c: Confirmable; resolution?: ConfirmationResolution }) {
  const client = useQueryClient();
  const elevated = c.tier === ConfirmationTier.ELEVATED;
  const files = importFiles(c);
  const [kept, setKept] = useState(() => new Set(files?.paths));
  const answer = useMutation({
    mutationFn: (send: () => Promise<SubmitConfirmationResponse>) => send(),
    onSettled: () => client.invalidateQueries({ queryKey: keys.pendingConfirmations }),
  });
  // The run's own event wins; until it comes, what the server answered this page.
  const decided = resolution ?? answer.data?.resolution;
  const granted = answer.data !== undefined && answer.data.grantId !== "";
  const sending = answer.isPending;
  const left = useSecondsLeft(c.expiresAt ? timestampDate(c.expiresAt).getTime() : Date.now(), decided === undefined);
  // Approving with files unticked sends only the kept ones; with all kept, the call as asked.
  const narrowed = files && kept.size < files.paths.length ? { root: files.root, paths: files.paths.filter((p) => kept.has(p)) } : undefined;
  const allow = () => (narrowed ? aware.approveWithEdits(c.confirmationId, narrowed) : aware.confirm(c.confirmationId, true));
  const toggle = (path: string) =>
    setKept((k) => {
      const next = new Set(k);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  const none = files !== undefined && kept.size === 0;
  return (
    <div className={`card ${elevated ? "elevated" : "standard"}`} role="group" aria-label={elevated ? "Confirmation required (caution)" : "Confirmation required"}>
      {elevated && <strong className="caution">⚠ Caution: {caution(c.toolName)}</strong>}
      {isExternal(c.toolName) ? <p className="plain">{c.description}</p> : <Markdown text={c.description} />}
      {c.blastRadius && <BlastRadiusNote b={c.blastRadius} />}
      {files && decided === undefined && (
        <fieldset className="files">
          <legend>Files to import</legend>
          {files.paths.map((p) => (
            <label key={p}>
              <input type="checkbox" checked={kept.has(p)} disabled={sending} onChange={() => toggle(p)} /> {p}
            </label>
          ))}
          {none && <p className="muted">Keep at least one file, or deny the import.</p>}
        </fieldset>
      )}
      {decided === undefined ? (
        <div className="actions">
          <button type="button" className="deny" disabled={sending} onClick={() => answer.mutate(() => aware.confirm(c.confirmationId, false))}>Deny</button>
          <button type="button" className={elevated ? "danger" : "allow"} disabled={sending || none} onClick={() => answer.mutate(allow)}>Allow</button>
          {c.grantable && (
            <button type="button" disabled={sending || none} onClick={() => answer.mutate(() => aware.allowFor(c.confirmationId, GRANT_MINUTES * 60, narrowed))}>
              Allow for {GRANT_MINUTES} minutes
            </button>
          )}
          <span className="muted countdown" aria-live="off">{left > 0 ? `expires in ${left}s` : "expiring…"}</span>
        </div>
      ) : (
        <p className={`resolved ${decided === ConfirmationResolution.APPROVED ? "" : "stopped"}`}>
          {RESOLVED[decided]}
          {granted && decided === ConfirmationResolution.APPROVED && ` for ${GRANT_MINUTES} minutes`}
        </p>
      )}
      {answer.isError && <p className="error" role="alert">{errorText(answer.error)}</p>}
    </div>
  );
}

/** What approving a dataset change touches, as the server counted it when it asked. The approval is
 *  bound to that version, so the card says a changed dataset means nothing is done. */
function BlastRadiusNote({ b }: { b: BlastRadius }) {
  return (
    <div className="blast-radius">
      <p>
        It holds {count(b.rowCount)} row{b.rowCount === 1n ? "" : "s"} ({formatBytes(b.sizeBytes)}).
      </p>
      {b.savedQueries.length > 0 && <p>Verified queries that read it: {b.savedQueries.join(", ")}</p>}
      {b.derivedDatasets.length > 0 && <p>Saved datasets computed from it: {b.derivedDatasets.map((d) => d.displayName || d.id).join(", ")}</p>}
      <p className="muted">Approval applies to this version only; if the dataset changes first, nothing is done.</p>
    </div>
  );
}
