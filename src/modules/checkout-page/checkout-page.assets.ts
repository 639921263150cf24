import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The page's own browser code and styles (TypeScript and CSS under `web/`). */
const WEB_DIR = fileURLToPath(new URL("../../../web/", import.meta.url));
const STYLE_SOURCE = "checkout-page.css";

/** A file served as is: its bytes, their gzip, and its content type. */
export interface Asset {
  body: Buffer;
  gzip: Buffer;
  contentType: string;
}

const asset = (body: Buffer | string, contentType: string): Asset => {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { body: bytes, gzip: gzipSync(bytes, { level: 9 }), contentType };
};

const fingerprint = (...parts: (string | Buffer)[]): string => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex").slice(0, 16);
};

/** Compiles the page's script: one minified file, no import left, for the browsers of the last few years. */
async function compileScript(): Promise<Asset> {
  const result = await build({
    entryPoints: [path.join(WEB_DIR, "checkout-page.ts")],
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
  if (!output) throw new Error("the checkout page script compiled to nothing");
  return asset(Buffer.from(output.contents), "text/javascript; charset=utf-8");
}

export interface CheckoutPageAssets {
  /** Content-addressed paths: a new release never meets an old cached copy. */
  scriptPath: string;
  stylePath: string;
  /** Compiled on first use and kept; the sources are read once, at start. */
  script(): Promise<Asset>;
  style: Asset;
  /** `@polar-sh/checkout`'s embed script, trusting this deployment's checkout origin. */
  embedScript: Asset;
}

/**
 * The embed script storefronts load (`Polar.EmbedCheckout.create(url)`) accepts messages only from
 * the origins compiled into it, Polar's own. The package's browser build is served with those
 * replaced by this deployment's checkout origin, so the same script, loaded from here, works with
 * this page unchanged.
 */
function embedScriptFor(checkoutOrigin: string): Asset {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve("@polar-sh/checkout/embed"));
  const source = readFileSync(path.join(packageDir, "embed.global.js"), "utf8");
  const trusted = /"https:\/\/polar\.sh,https:\/\/sandbox\.polar\.sh"/g;
  if (!trusted.test(source)) throw new Error("@polar-sh/checkout's embed script no longer names the origins it trusts as expected");
  return asset(source.replace(trusted, JSON.stringify(checkoutOrigin)), "text/javascript; charset=utf-8");
}

export function checkoutPageAssets(checkoutBaseUrl: string): CheckoutPageAssets {
  const scriptSources = readdirSync(WEB_DIR)
    .filter((file) => file.endsWith(".ts"))
    .sort()
    .map((file) => readFileSync(path.join(WEB_DIR, file)));
  const style = asset(readFileSync(path.join(WEB_DIR, STYLE_SOURCE)), "text/css; charset=utf-8");
  let compiled: Promise<Asset> | null = null;
  return {
    scriptPath: `/checkout/assets/checkout-page.${fingerprint(...scriptSources)}.js`,
    stylePath: `/checkout/assets/checkout-page.${fingerprint(style.body)}.css`,
    script: () => {
      compiled ??= compileScript().catch((error: unknown) => {
        compiled = null;
        throw error;
      });
      return compiled;
    },
    style,
    embedScript: embedScriptFor(new URL(checkoutBaseUrl).origin),
  };
}
