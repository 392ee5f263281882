// Settings: the theme, what this server is (version, mode, sign-in and role, model, largest
// upload), and the tools the assistant may use — aware's own and external MCP servers'.
import { useQuery } from "@tanstack/react-query";
import { errorText } from "../../lib/api";
import { formatBytes } from "../../lib/format";
import { usePageTitle } from "../../lib/pageTitle";
import { capabilitiesQuery } from "../../lib/queries/capabilities";
import { ThemePicker } from "./ThemePicker";
import { ToolList } from "./ToolList";

export function SettingsPage() {
  usePageTitle("Settings");
  // Read fresh: an external server's state changes on its own.
  const { data: caps, error } = useQuery({ ...capabilitiesQuery(), staleTime: 0 });
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <ThemePicker />
      {error && <p className="error" role="alert">{errorText(error)}</p>}
      {!caps && !error && <p className="muted">Loading…</p>}
      {caps && (
        <>
          <dl className="facts">
            <dt>Server</dt><dd>aware {caps.serverVersion}</dd>
            <dt>Mode</dt><dd>{caps.mode}</dd>
            <dt>Sign-in</dt><dd>{caps.authMode}, role {caps.role}</dd>
            <dt>Model</dt><dd>{caps.modelProvider}</dd>
            <dt>Largest upload</dt><dd>{formatBytes(caps.maxUploadBytes)}</dd>
          </dl>
          <ToolList caps={caps} />
        </>
      )}
    </section>
  );
}
