// The app's pages by URL. Every page has a path, so a reload or a shared link opens it again;
// the query string carries what holds across pages (`?thread=`, see lib/links.tsx). `/` goes to
// the datasets.
import { redirect, type RouteObject } from "react-router";
import { AdminPage } from "./pages/admin/AdminPage";
import { DatasetPage } from "./pages/dataset/DatasetPage";
import { DatasetsPage } from "./pages/DatasetsPage";
import { MemoryPage } from "./pages/MemoryPage";
import { RunPage } from "./pages/RunPage";
import { RunsPage } from "./pages/RunsPage";
import { SettingsPage } from "./pages/settings/SettingsPage";
import { SqlPage } from "./pages/SqlPage";
import { AppShell } from "./shell/AppShell";
import { NotFound } from "./shell/NotFound";
import { RouteError } from "./shell/RouteError";

export const routes: RouteObject[] = [
  {
    path: "/",
    element: <AppShell />,
    errorElement: <RouteError />,
    // Only `/` has a loader (the redirect): nothing to show while it runs.
    hydrateFallbackElement: null,
    children: [
      {
        // A page that fails to render fails inside the frame: the menu and the assistant stay.
        errorElement: <RouteError />,
        children: [
          { index: true, loader: ({ request }) => redirect(`/datasets${new URL(request.url).search}`) },
          { path: "datasets", element: <DatasetsPage /> },
          { path: "datasets/:id", element: <DatasetPage /> },
          { path: "sql", element: <SqlPage /> },
          { path: "runs", element: <RunsPage /> },
          { path: "runs/:id", element: <RunPage /> },
          { path: "memory", element: <MemoryPage /> },
          { path: "settings", element: <SettingsPage /> },
          { path: "admin", element: <AdminPage /> },
          { path: "*", element: <NotFound /> },
        ],
      },
    ],
  },
];
