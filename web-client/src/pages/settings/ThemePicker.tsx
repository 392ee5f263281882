// The colour theme: as the system is (light or dark, following it), light or dark — kept in this
// browser, shown at once.
import { useState } from "react";
import { applyTheme, savedTheme, type Theme } from "../../lib/theme";

const NAMES: Record<Theme, string> = { system: "As the system", light: "Light", dark: "Dark" };

export function ThemePicker() {
  const [theme, setTheme] = useState<Theme>(savedTheme);
  const pick = (t: Theme) => {
    setTheme(t);
    applyTheme(t, true);
  };
  return (
    <fieldset className="theme-picker">
      <legend>Theme</legend>
      {(["system", "light", "dark"] as const).map((t) => (
        <label key={t}>
          <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => pick(t)} />
          {NAMES[t]}
        </label>
      ))}
    </fieldset>
  );
}
