// The colour theme: the system's (light or dark, following it), or one the person picked in
// Settings, kept in this browser. The tokens (styles/tokens.css) read it from <html data-theme>.
export type Theme = "system" | "light" | "dark";

const KEY = "aware.theme";

export function savedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === "light" || t === "dark" ? t : "system";
  } catch {
    return "system";
  }
}

/** Shows `theme` now and, when `keep`, remembers it for the next visit. */
export function applyTheme(theme: Theme, keep = false) {
  const root = document.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
  if (!keep) return;
  try {
    if (theme === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  } catch {
    // Storage refused (private mode): the theme holds for this visit only.
  }
}
