import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { projectRoot } from "../helpers/process.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** Every `*.routes.ts` file under src/, with its text. */
async function routeFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(path.join(projectRoot, "src"), { recursive: true })) {
    if (entry.endsWith(".routes.ts")) files.set(entry, await readFile(path.join(projectRoot, "src", entry), "utf8"));
  }
  return files;
}

describe("route files", () => {
  // docs/architecture.md promises that one grep for a path finds its handler's file.
  it("write every served path out in full, in exactly one route file", async () => {
    const document = (await ctx.request({ method: "GET", url: "/openapi.json" })).json<{ paths: Record<string, unknown> }>();
    const files = await routeFiles();
    const served = Object.keys(document.paths).map((openApiPath) => openApiPath.replace(/\{(\w+)\}/g, ":$1"));
    expect(served.length).toBeGreaterThan(40);
    for (const route of served) {
      const holders = [...files].filter(([, text]) => text.includes(`"${route}"`)).map(([file]) => file);
      expect(holders, route).toHaveLength(1);
    }
  });
});
