import { mkdir, readFile, symlink } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/**
 * The entry points that tests run as processes, by their path in the project. Each is bundled on
 * its own (no shared chunks), so a process loads one file of the project's code.
 */
export const PROCESS_ENTRY_POINTS = ["src/server.ts", "src/cli.ts", "test/helpers/sweep-once.ts"] as const;

/** Where the bundle of a project entry point is, in a directory made by buildProjectBundle. */
export const bundledEntry = (dir: string, entry: string) => path.join(dir, `${entry.replace(/\.ts$/, "")}.mjs`);

/**
 * Each file keeps its own `import.meta.url`: the code resolves the web assets, fonts and packages
 * relative to its source file, and in one bundle they would all resolve relative to the bundle.
 */
const ownUrl = (): Plugin => ({
  name: "own-import-meta-url",
  setup(bundler) {
    bundler.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => ({
      contents: (await readFile(file, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href)),
      loader: "ts",
    }));
  },
});

/**
 * Bundles the entry points that tests spawn into `dir`, once per test run: each spawned process
 * then loads plain JavaScript instead of transpiling `src/` through tsx's loader hooks (about 2 s
 * of CPU per process). Packages stay external, loaded from the project's node_modules (linked into
 * `dir`) as in production; the bundle is the project's code, only transpiled ahead.
 */
export async function buildProjectBundle(projectRoot: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await symlink(path.join(projectRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  await build({
    absWorkingDir: projectRoot,
    entryPoints: PROCESS_ENTRY_POINTS.map((entry) => ({ in: entry, out: entry.replace(/\.ts$/, "") })),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    // Names stay as written (errors and classes are told apart by name), not renamed where two
    // modules' top-level names collide in the bundle.
    keepNames: true,
    logLevel: "error",
    plugins: [ownUrl()],
  });
}
