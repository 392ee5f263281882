import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

// @aware/client is used from source (clients/ts/src), so the UI always matches the contract.
const client = fileURLToPath(new URL("../clients/ts/src/index.ts", import.meta.url));

export default defineConfig({
  // Absolute asset URLs: the app's pages have paths (/datasets/ds_…), and the server answers each
  // with index.html, whose scripts must load from the root whatever the page's path.
  base: "/",
  plugins: [react()],
  resolve: { alias: { "@aware/client": client } },
  server: { fs: { allow: [".."] } },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
});
