import { build } from "esbuild";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The pages' own browser code and styles (TypeScript and CSS under `web/`). */
const WEB_DIR = fileURLToPath(new URL("../../web/", import.meta.url));
const STYLE_SOURCE = "pages.css";
/** Where the assets are served; content-addressed names below it. */
const ASSET_PREFIX = "/checkout/assets/";
const YEAR_SECONDS = 31_536_000;

/** The pages with a script of their own: each is `web/<page>.ts`. */
export type ScriptedPage = "checkout-page" | "portal-page";
const PAGES: readonly ScriptedPage[] = ["checkout-page", "portal-page"];

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

const fingerprint = (...parts: (string | Buffer)[]): string => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex").slice(0, 16);
};

/** Compiles a page's script: one minified file, no import left, for the browsers of the last few years. */
async function compileScript(page: ScriptedPage): Promise<Asset> {
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
  return asset(Buffer.from(output.contents), "text/javascript; charset=utf-8");
}

export interface WebAssets {
  /** Content-addressed paths of a page's script and the shared stylesheet: a release never meets an old cached copy. */
  pathsFor(page: ScriptedPage): { scriptPath: string; stylePath: string };
  /** Compiled on first use and kept; the sources are read once, at start. */
  script(page: ScriptedPage): Promise<Asset>;
  style: Asset;
}

export function createWebAssets(): WebAssets {
  const sources = readdirSync(WEB_DIR)
    .filter((file) => file.endsWith(".ts"))
    .sort()
    .map((file) => readFileSync(path.join(WEB_DIR, file)));
  const version = fingerprint(...sources);
  const style = asset(readFileSync(path.join(WEB_DIR, STYLE_SOURCE)), "text/css; charset=utf-8");
  const stylePath = `${ASSET_PREFIX}pages.${fingerprint(style.body)}.css`;
  const compiled = new Map<ScriptedPage, Promise<Asset>>();
  return {
    pathsFor: (page) => ({ scriptPath: `${ASSET_PREFIX}${page}.${version}.js`, stylePath }),
    script(page) {
      let pending = compiled.get(page);
      if (!pending) {
        pending = compileScript(page).catch((error: unknown) => {
          compiled.delete(page);
          throw error;
        });
        compiled.set(page, pending);
      }
      return pending;
    },
    style,
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

/** The pages' scripts and stylesheet, cached for a year at their content-addressed paths. */
export const webAssetRoutes =
  (assets: WebAssets): FastifyPluginAsync =>
  async (app) => {
    const immutable = `public, max-age=${YEAR_SECONDS}, immutable`;
    for (const page of PAGES) {
      const { scriptPath } = assets.pathsFor(page);
      app.get(scriptPath, { schema: { hide: true } }, async (request, reply) =>
        sendAsset(request, reply, await assets.script(page), immutable, false),
      );
    }
    app.get(assets.pathsFor("checkout-page").stylePath, { schema: { hide: true } }, async (request, reply) =>
      sendAsset(request, reply, assets.style, immutable, false),
    );
  };
