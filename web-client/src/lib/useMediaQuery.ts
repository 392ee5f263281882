// Whether a CSS media query matches now, following it as the window changes: the shell lays the
// assistant out beside the page or as a drawer by it (the same breakpoint as styles' layout).
import { useSyncExternalStore } from "react";

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", changed);
      return () => list.removeEventListener("change", changed);
    },
    () => window.matchMedia(query).matches,
  );
}

/** Below this width the page takes the window and the assistant becomes a drawer over it. */
export const NARROW = "(max-width: 1100px)";
