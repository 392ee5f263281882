// The app: server state through TanStack Query, pages through React Router (path URLs), hints
// through Radix UI's tooltips, and the theme picked in Settings applied before the first paint.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClientProvider } from "@tanstack/react-query";
import { createBrowserRouter, RouterProvider } from "react-router";
import { pathFromHash } from "./lib/hashLinks";
import { createQueryClient } from "./lib/queryClient";
import { applyTheme, savedTheme } from "./lib/theme";
import { routes } from "./router";
import { TipProvider } from "./ui/Tooltip";
import "./styles/index.css";

// An old hash link (a bookmark) lands on its page's path.
const old = pathFromHash(window.location);
if (old) window.history.replaceState(window.history.state, "", old);

applyTheme(savedTheme());

const router = createBrowserRouter(routes);
// One followed inside the app (an old link in a text) too.
window.addEventListener("hashchange", () => {
  const path = pathFromHash(window.location);
  if (path) void router.navigate(path, { replace: true });
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={createQueryClient()}>
      <TipProvider>
        <RouterProvider router={router} />
      </TipProvider>
    </QueryClientProvider>
  </StrictMode>,
);
