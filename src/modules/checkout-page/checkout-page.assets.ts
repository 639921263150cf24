import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { asset, type Asset } from "../../pages/web-assets.ts";

/**
 * The embed script storefronts load (`Polar.EmbedCheckout.create(url)`) accepts messages only from
 * the origins compiled into it, Polar's own. The package's browser build is served with those
 * replaced by this deployment's checkout origin, so the same script, loaded from here, works with
 * this page unchanged.
 */
export function embedScriptFor(checkoutOrigin: string): Asset {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve("@polar-sh/checkout/embed"));
  const source = readFileSync(path.join(packageDir, "embed.global.js"), "utf8");
  const trusted = /"https:\/\/polar\.sh,https:\/\/sandbox\.polar\.sh"/g;
  if (!trusted.test(source)) throw new Error("@polar-sh/checkout's embed script no longer names the origins it trusts as expected");
  return asset(source.replace(trusted, JSON.stringify(checkoutOrigin)), "text/javascript; charset=utf-8");
}
