import { existsSync } from "node:fs";

/** Debian's Chromium, which playwright-core drives: no browser is ever downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM_PATH);
export const BROWSER_MISSING = `Browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH, to run them).`;
