import { build } from "esbuild";
import type { FastifyReply, FastifyRequest } from "fastify";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The pages' own browser code and styles (TypeScript and CSS under `web/`). */
const WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));
/** The pages with a script of their own: each is `web/<page>.ts`. */
export type ScriptedPage = "checkout-page" | "portal-page" | "dashboard-page";

/**
 * Each page's stylesheets, in order: the hosted pages' own (`web/`), and the dashboard's charts'
 * (uPlot's, from its package, bundled here like its script rather than loaded from a CDN).
 */
const STYLE_SOURCES: Record<ScriptedPage, readonly string[]> = {
  "checkout-page": ["pages.css"],
  "portal-page": ["pages.css"],
  "dashboard-page": ["pages.css", "dashboard.css", "uplot/dist/uPlot.min.css"],
};

const styleFile = (name: string): string =>
  name.endsWith(".css") && !name.includes("/") ? path.join(WEB_DIR, name) : createRequire(import.meta.url).resolve(name);

/** A file served as is: its bytes, their gzip, and its content type. */
export interface Asset {
  body: Buffer;
  gzip: Buffer;
  contentType: string;
}

export const asset = (body: Buffer | string, contentType: string): Asset => {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { body: bytes, gzip: gzipSync(bytes, { level: 9 }), contentType };
};

/** Compiles a page's script: one minified file, no import left, for the browsers of the last few years. */
async function compileScript(page: ScriptedPage): Promise<string> {
  const result = await build({
    entryPoints: [path.join(WEB_DIR, `${page}.ts`)],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2020"],
    platform: "browser",
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`the ${page} script compiled to nothing`);
  return output.text;
}

/**
 * A page's script and stylesheet, written into the page itself (one request for a cold load), with
 * the hashes the page's Content-Security-Policy allows them by.
 */
export interface PageAssets {
  script: string;
  style: string;
  /** `'sha256-…'` sources for `script-src` and `style-src`. */
  scriptHash: string;
  styleHash: string;
}

export interface WebAssets {
  /** Compiled on first use and kept; the stylesheets are read once, at start. */
  forPage(page: ScriptedPage): Promise<PageAssets>;
}

const cspHash = (text: string): string => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

export function createWebAssets(): WebAssets {
  const styles = new Map<string, string>();
  const styleOf = (page: ScriptedPage): string => {
    const key = STYLE_SOURCES[page].join(" ");
    let style = styles.get(key);
    if (style === undefined) {
      style = STYLE_SOURCES[page].map((name) => readFileSync(styleFile(name), "utf8")).join("\n");
      if (/<\/style/i.test(style)) throw new Error(`the ${page} styles cannot be written inside a <style> element`);
      styles.set(key, style);
    }
    return style;
  };
  // Read at start, so a missing stylesheet stops the server rather than a page.
  for (const page of Object.keys(STYLE_SOURCES) as ScriptedPage[]) styleOf(page);
  const compiled = new Map<ScriptedPage, Promise<PageAssets>>();
  const inline = async (page: ScriptedPage): Promise<PageAssets> => {
    const script = (await compileScript(page)).trimEnd();
    // esbuild escapes `</script` in what it writes; a page must never end its own script early.
    if (/<\/script/i.test(script)) throw new Error(`the ${page} script cannot be written inside a <script> element`);
    const style = styleOf(page);
    return { script, style, scriptHash: cspHash(script), styleHash: cspHash(style) };
  };
  return {
    forPage(page) {
      let pending = compiled.get(page);
      if (!pending) {
        pending = inline(page).catch((error: unknown) => {
          compiled.delete(page);
          throw error;
        });
        compiled.set(page, pending);
      }
      return pending;
    },
  };
}

/** Serves an asset, gzipped when the client takes it. */
export function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  served: Asset,
  cacheControl: string,
  crossOrigin: boolean,
): FastifyReply {
  const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "");
  return reply
    .headers({
      "content-type": served.contentType,
      "cache-control": cacheControl,
      vary: "accept-encoding",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": crossOrigin ? "cross-origin" : "same-origin",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    })
    .send(gzip ? served.gzip : served.body);
}
