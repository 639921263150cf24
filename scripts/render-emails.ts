import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { renderEmailPreviews } from "./email-previews.ts";

// `npm run emails:render [-- <folder>]`: every email in every language, drawn as a phone and a
// desktop would show it (default folder: email-previews/, ignored by git).

const folder = path.resolve(process.argv[2] ?? "email-previews");
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromiumPath)) {
  process.stderr.write(`No Chromium at ${chromiumPath}: apt-get install -y chromium, or set CHROMIUM_PATH.\n`);
  process.exit(1);
}
const browser = await chromium.launch({ executablePath: chromiumPath });
const written = await renderEmailPreviews(folder, browser).finally(() => browser.close());
process.stdout.write(`${written.length} files written to ${folder}\n`);
