// The window's title names the page, so tabs, history and screen readers tell pages apart.
import { useEffect } from "react";

export function usePageTitle(page: string | undefined) {
  useEffect(() => {
    document.title = page ? `${page} · aware` : "aware";
  }, [page]);
}
