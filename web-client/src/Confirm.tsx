// The second click before a change that cannot be undone: what will happen, the action, and a way
// back (focused, so Enter on a stray keypress keeps things as they are).
export function ConfirmInline({
  label,
  question,
  action,
  busy,
  onConfirm,
  onCancel,
}: {
  /** The group's accessible name, e.g. "Confirm revoke". */
  label: string;
  question: string;
  /** The button that acts, e.g. "Revoke key". */
  action: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="confirm-inline" role="group" aria-label={label}>
      <p>{question}</p>
      <button type="button" className="danger" disabled={busy} onClick={onConfirm}>{action}</button>
      <button type="button" disabled={busy} onClick={onCancel} autoFocus>Keep it</button>
    </div>
  );
}
