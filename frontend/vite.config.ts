// Builds the explorer into the Python package (src/loregraph/explorer/static), with
// relative asset paths so the page works wherever `loregraph serve` mounts it. After the
// build, `sources.sha256` records a hash of the sources it was built from, which a test
// compares with the checkout's sources (so stale assets are caught without Node).
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { defineConfig, type Plugin } from "vite";

const root = resolve(__dirname);
const outDir = resolve(root, "../src/loregraph/explorer/static");
const SOURCES = ["index.html", "package.json", "package-lock.json", "vite.config.ts", "tsconfig.json", "src", "public"];

function files(path: string): string[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path).sort().flatMap((name) => files(join(path, name)));
  }
  return [path];
}

/** sha256 over each source file's path (relative, with /) and bytes, in sorted order. */
export function sourcesHash(): string {
  const hash = createHash("sha256");
  const all = SOURCES.flatMap((name) => files(join(root, name)))
    .map((path) => [relative(root, path).split("\\").join("/"), path] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, path] of all) {
    hash.update(name + "\n");
    hash.update(readFileSync(path));
    hash.update("\n");
  }
  return hash.digest("hex");
}

function stamp(): Plugin {
  return {
    name: "loregraph-sources-stamp",
    closeBundle() {
      writeFileSync(join(outDir, "sources.sha256"), sourcesHash() + "\n");
    },
  };
}

export default defineConfig({
  root,
  base: "./",
  plugins: [stamp()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: "assets",
    chunkSizeWarningLimit: 1000,
    sourcemap: false,
  },
});
