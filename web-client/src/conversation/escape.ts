// Esc inside a form that uses it for itself (cancel an edit, skip a reason) is that form's: the
// dialog around it (the phone drawer, the conversations panel) stays open. Such forms say so with
// `data-own-escape`.
export function ownsEscape(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest("[data-own-escape]") !== null;
}
