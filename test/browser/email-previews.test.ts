import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREVIEW_WIDTHS, renderEmailPreviews } from "../../scripts/email-previews.ts";
import { EMAIL_SAMPLES, PREVIEW_LOCALES } from "../../scripts/email-samples.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { BROWSER_MISSING, chromiumAvailable } from "../helpers/chromium.ts";

if (!chromiumAvailable) console.warn(BROWSER_MISSING);

let folder: string;
let browser: Browser;
beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "commerce-api-email-previews-"));
  if (chromiumAvailable) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await rm(folder, { recursive: true, force: true });
});

/** A PNG's width, from its header chunk. */
const pngWidth = (bytes: Buffer) => {
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  return bytes.readUInt32BE(16);
};

describe.skipIf(!chromiumAvailable)("email previews (npm run emails:render)", () => {
  it("draws a template at each width, with its plain part beside it", async () => {
    const sample = EMAIL_SAMPLES[0]!;
    const locales = ["ja-JP"];
    const written = await renderEmailPreviews(folder, browser, { samples: [sample], locales });
    expect(written).toHaveLength(locales.length * (PREVIEW_WIDTHS.length + 1));
    for (const locale of locales) {
      for (const width of PREVIEW_WIDTHS)
        expect(pngWidth(await readFile(path.join(folder, `${sample.template}.${locale}.${width}.png`)))).toBe(width);
      const text = await readFile(path.join(folder, `${sample.template}.${locale}.txt`), "utf8");
      expect(text).toBe(`Subject: ${sample.render(locale).subject}\n\n${sample.render(locale).text}`);
    }
  });

  it("fits every template in every language on a phone's screen: nothing wider than 390 px", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 }, javaScriptEnabled: false });
    const overflowing: string[] = [];
    for (const sample of EMAIL_SAMPLES)
      for (const locale of sample.locales ?? PREVIEW_LOCALES) {
        await page.setContent(sample.render(locale).html, { waitUntil: "load" });
        const width = await page.evaluate<number>("document.documentElement.scrollWidth");
        if (width > 390) overflowing.push(`${sample.template}.${locale}: ${width}px`);
      }
    expect(overflowing).toEqual([]);
  });
});
