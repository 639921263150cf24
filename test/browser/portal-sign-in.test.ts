import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import type { TestContext } from "../helpers/context.ts";
import { createCustomer, createOrganization } from "../helpers/factories.ts";
import { testSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { codeFromLatestEmail } from "../modules/customer-portal/portal-sign-in-helpers.ts";

/** Signing in to the portal by email code in headless Chromium, the code read from the email the SMTP server received. */
describe.skipIf(!chromiumAvailable)("portal sign-in by email code in a browser", { timeout: 120_000 }, () => {
  let smtp: TestSmtpServer;
  let ctx: TestContext;
  let origin: string;
  let browser: Browser;
  let slug: string;

  beforeAll(async () => {
    smtp = await testSmtpServer();
    await smtp.start();
    ({ ctx, origin } = await startListeningContext({ SMTP_URL: smtp.url, EMAIL_FROM: "Shop Mail <mail@shop.example>" }));
    const org = await createOrganization(ctx.deps, `Tea & <Biscuits> ${Date.now()}`);
    slug = org.slug;
    await createCustomer(ctx.deps, org.id, { email: "ada@example.com", name: "Ada Lovelace" });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    ctx?.services.mail?.close();
    await ctx?.close();
    await smtp?.stop();
  });

  it("asks for the email, then the code from the email, then shows the portal signed in", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${origin}/${slug}/portal`);
    await page.waitForSelector("html[data-ready]");
    await expectAccessible(page);
    await page.getByLabel("Email address").fill("ada@example.com");
    await page.getByRole("button", { name: "Email me a sign-in code" }).click();
    await page.getByRole("heading", { name: "Enter your sign-in code" }).waitFor();
    await expectAccessible(page);

    // A wrong code first: the form again, with why.
    await page.getByLabel("Sign-in code").fill("ZZZZZZ");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This code is invalid or has expired.").waitFor();

    const code = await codeFromLatestEmail(ctx, smtp, "ada@example.com");
    // Typed in lower case, as a customer may: the page reads it as the code.
    await page.getByLabel("Sign-in code").fill(code.toLowerCase());
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as ada@example.com").waitFor();
    expect(page.url()).toBe(`${origin}/${slug}/portal`);
    expect((await context.cookies())[0]).toMatchObject({ name: "portal_session", httpOnly: true, sameSite: "Lax" });
    expect(await page.evaluate("document.cookie")).toBe("");
    await context.close();
  });

  it("follows the code email's link to the code form", async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/${slug}/portal/sign-in/code`);
    await page.getByRole("heading", { name: "Enter your sign-in code" }).waitFor();
    await page.close();
  });
});
