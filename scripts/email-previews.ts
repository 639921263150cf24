import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Browser } from "playwright-core";
import { EMAIL_SAMPLES, PREVIEW_LOCALES, type EmailSample } from "./email-samples.ts";

/** A phone's mail app and a desktop client's reading pane. */
export const PREVIEW_WIDTHS = [390, 1280] as const;

/**
 * Draws every email template in every preview language at each width with Chromium, one PNG each
 * (`<template>.<locale>.<width>.png`) plus the plain-text part beside it (`<template>.<locale>.txt`),
 * into `folder`. Returns the files written. Scripts stay off: the HTML is what a mail client gets.
 */
export async function renderEmailPreviews(
  folder: string,
  browser: Browser,
  only: { samples?: readonly EmailSample[]; locales?: readonly string[] } = {},
): Promise<string[]> {
  const samples = only.samples ?? EMAIL_SAMPLES;
  await mkdir(folder, { recursive: true });
  const written: string[] = [];
  for (const width of PREVIEW_WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 800 }, javaScriptEnabled: false });
    for (const sample of samples)
      for (const locale of only.locales ?? sample.locales ?? PREVIEW_LOCALES) {
        const email = sample.render(locale);
        await page.setContent(email.html, { waitUntil: "load" });
        const file = path.join(folder, `${sample.template}.${locale}.${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        written.push(file);
        if (width === PREVIEW_WIDTHS[0]) {
          const text = path.join(folder, `${sample.template}.${locale}.txt`);
          await writeFile(text, `Subject: ${email.subject}\n\n${email.text}`);
          written.push(text);
        }
      }
    await page.close();
  }
  return written;
}
