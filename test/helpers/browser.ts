import { mkdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { expect } from "vitest";
import { CHROMIUM_PATH } from "./chromium.ts";
import { createTestContext, type TestContext } from "./context.ts";

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM_PATH });

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The real app listening on a loopback port that its checkout, portal and download URLs name. */
export async function startListeningContext(env: Record<string, string> = {}): Promise<{ ctx: TestContext; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({ env: { CHECKOUT_BASE_URL: origin, PUBLIC_BASE_URL: origin, ...env } });
  await ctx.app.listen({ port, host: "127.0.0.1" });
  return { ctx, origin };
}

/** A second local origin standing in for a merchant's storefront: fixed pages by path. */
export async function startStorefront(pages: (origin: string) => Record<string, string>) {
  let routes: Record<string, string> = {};
  const server = http.createServer((request, response) => {
    const body = routes[new URL(request.url ?? "/", "http://x").pathname];
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" });
    response.end(body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  routes = pages(origin);
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core, evaluated through the DevTools protocol (the page's CSP allows no injected script): no serious or critical violation. */
export async function expectAccessible(target: Page | Frame): Promise<void> {
  await target.evaluate(axeSource);
  const violations = await target.evaluate<AxeViolation[]>("axe.run(document).then((result) => result.violations)");
  const severe = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")})`);
  expect(severe).toEqual([]);
}

/** Screenshots at 1280 and 360 pixels wide, in both themes, into test-results/. */
export async function screenshotAll(page: Page, url: string, name: string): Promise<void> {
  await mkdir("test-results", { recursive: true });
  for (const theme of ["light", "dark"] as const) {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      const themed = new URL(url);
      themed.searchParams.set("theme", theme);
      await page.goto(themed.toString());
      await page.waitForSelector("html[data-ready]");
      await expectAccessible(page);
      await page.screenshot({ path: `test-results/${name}-${width}-${theme}.png`, fullPage: true });
    }
  }
}
