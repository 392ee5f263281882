// A new API key's token, shown this once — on the Admin page after "Create key", and in the
// assistant's live card for a key made in chat: the server stores only its hash and first
// characters.
import { useRef, useState } from "react";

export function OneTimeToken({ token, prefix, owner, onDone }: { token: string; prefix: string; owner: string; onDone?: () => void }) {
  const [copied, setCopied] = useState("");
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied("Copied");
    } catch {
      // No clipboard (an insecure page, or permission refused): the person copies it themselves.
      field.current?.select();
      setCopied("Selected: press Ctrl+C (⌘C on a Mac) to copy");
    }
  };
  return (
    <div className="one-time-token" role="region" aria-label="New API key token">
      <p><strong>The new API key for {owner}</strong></p>
      <div className="token-row">
        <input ref={field} readOnly value={token} aria-label="API key token" spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>Copy</button>
        <span role="status">{copied}</span>
      </div>
      <p className="warning">
        ⚠ Copy it now: you will not see it again. aware keeps only its first characters ({prefix}…), so a lost key can be
        revoked, never shown.
      </p>
      {onDone && <button type="button" onClick={onDone}>Done</button>}
    </div>
  );
}
