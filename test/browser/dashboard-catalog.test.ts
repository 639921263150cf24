import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AvailableScopes, type AvailableScope } from "../../src/modules/organizations/access-tokens.schemas.ts";
import { launchBrowser, startListeningContext } from "../helpers/browser.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { checkDashboardWidths, dashboardPageReady, signInToDashboard, callApi } from "../helpers/dashboard-browser.ts";
import type { TestContext } from "../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../helpers/factories.ts";

const HOSTILE = "<img src=x onerror=alert(1)>";
const READ_ONLY: AvailableScope[] = ["organizations:read", "products:read", "custom_fields:read", "benefits:read"];
/** More than two pages of the dashboard's 20 rows. */
const SEEDED_PRODUCTS = 45;

interface LegalDetails {
  registered_name: string | null;
  address: Record<string, string | null> | null;
  tax_registrations: { country: string; state: string | null; scheme: string; number: string | null }[];
}

/** Products with custom fields, the legal details and tax registrations, and lists a page at a time, in headless Chromium. */
describe.skipIf(!chromiumAvailable)("dashboard catalog and settings in a browser", { timeout: 240_000 }, () => {
  let ctx: TestContext;
  let browser: Browser;
  let origin: string;
  let orgId: string;
  let token: string;
  let readOnly: string;
  let companyId: string;
  let hostileFieldId: string;
  let dialogs = 0;

  const api = <T>(method: "GET" | "POST", url: string, payload?: object): Promise<T> => callApi<T>(ctx, token, method, url, payload);

  beforeAll(async () => {
    ({ ctx, origin } = await startListeningContext());
    orgId = (await createOrganization(ctx.deps, `Catalog shop ${Date.now()}`)).id;
    token = await createOrganizationToken(ctx.deps, orgId, [...AvailableScopes]);
    readOnly = await createOrganizationToken(ctx.deps, orgId, READ_ONLY);
    const field = (slug: string, name: string) =>
      api<{ id: string }>("POST", "/v1/custom-fields/", { type: "text", slug, name, properties: {} });
    companyId = (await field("company", "Company")).id;
    hostileFieldId = (await field("hostile", HOSTILE)).id;
    for (let n = 1; n <= SEEDED_PRODUCTS; n += 1)
      await createProduct(ctx.deps, orgId, { product: { name: `Seeded ${String(n).padStart(2, "0")}` } });
    browser = await launchBrowser();
    await mkdir("test-results", { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  const signedIn = (with_ = token) =>
    signInToDashboard(browser, origin, with_, {
      onDialog: () => {
        dialogs += 1;
      },
    });

  /** Opens a dashboard address and waits until its page is built. */
  async function visit(page: Page, path: string, heading: string | RegExp): Promise<void> {
    await page.goto(`${origin}/dashboard${path}`);
    await dashboardPageReady(page, heading);
  }

  const attachedOf = async (productId: string) =>
    (await api<{ attached_custom_fields: { custom_field_id: string; required: boolean }[] }>("GET", `/v1/products/${productId}`))
      .attached_custom_fields;

  it("Products: creates a product asking for a required custom field, then changes which fields its checkout asks for", async () => {
    const { context, page } = await signedIn();
    await visit(page, "/products/new", "New product");
    const ask = page.getByRole("combobox", { name: /^Ask for a custom field/ });
    await ask.fill("comp");
    await page.getByRole("option", { name: "“Company” (text)" }).click();
    await page.keyboard.press("Escape");
    await page.getByLabel("Require “Company”").check();
    // A new field, created without leaving the form: a choice of sizes, its key following its name.
    await page.getByLabel(/^Question/).fill("T-shirt size");
    expect(await page.getByLabel(/^Key/).inputValue()).toBe("t-shirt-size");
    await page.getByLabel(/^Type/).selectOption("select");
    await page.getByLabel(/^Options/).fill("S\nM\nL");
    await page.getByRole("button", { name: "Create custom field" }).click();
    await page.getByText("Custom field “T-shirt size” created").waitFor();
    const chosen = page.getByRole("list", { name: "Chosen custom fields" });
    await chosen.getByText("“T-shirt size” (select)").waitFor();
    const [size] = (await api<{ items: { id: string; properties: object }[] }>("GET", "/v1/custom-fields/?query=t-shirt")).items;
    expect(size?.properties).toMatchObject({ options: ["S", "M", "L"].map((label) => ({ value: label, label })) });
    await checkDashboardWidths(page, "product-new-custom-fields");
    await page.getByLabel(/^Name/).fill("Consulting hour");
    await page.getByLabel(/^Amount/).fill("90");
    await page.getByRole("button", { name: "Create product" }).click();
    await page.getByText("The product is created.").waitFor();
    const productId = new URL(page.url()).pathname.split("/").at(-1)!;
    const attached = await attachedOf(productId);
    expect(attached.map(({ custom_field_id, required }) => ({ custom_field_id, required }))).toEqual([
      { custom_field_id: companyId, required: true },
      { custom_field_id: size?.id, required: false },
    ]);

    // The product's page shows them as attached; the hostile name is text.
    await page.locator("html[data-ready=true] main[aria-busy=false]").waitFor();
    expect(await page.getByLabel("Require “Company”").isChecked()).toBe(true);
    await ask.fill("hostile");
    await page.getByRole("option", { name: `“${HOSTILE}” (text)` }).click();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Remove “Company” (text)" }).click();
    expect(await page.getByLabel("Require “Company”").count()).toBe(0);
    await page.getByRole("button", { name: "Save custom fields" }).click();
    await page.getByText("The custom fields are saved.").waitFor();
    // Those asked for keep their order; one newly asked for comes after them.
    expect((await attachedOf(productId)).map((a) => a.custom_field_id)).toEqual([size?.id, hostileFieldId]);
    expect(await page.locator("main img").count()).toBe(0);
    expect(dialogs).toBe(0);
    await checkDashboardWidths(page, "product-custom-fields");
    await context.close();

    // A read-only token sees the fields, and every save disabled with the reason in words.
    const reader = await signedIn(readOnly);
    await visit(reader.page, `/products/${productId}`, "Consulting hour");
    await reader.page.getByRole("list", { name: "Chosen custom fields" }).getByText(`“${HOSTILE}” (text)`).waitFor();
    expect(await reader.page.getByRole("button", { name: "Save custom fields" }).isDisabled()).toBe(true);
    expect(await reader.page.getByText("Disabled: your token lacks the products:write scope.").count()).toBe(3);
    await reader.context.close();
  });

  it("Settings: records the legal details and adds and removes tax registrations; the API's refusal shows beside the field", async () => {
    const { context, page } = await signedIn();
    await visit(page, "/settings", "Settings");
    await page.getByText("No registrations: no tax is collected.").waitFor();
    await page.getByLabel(/^Registered name/).fill(`Catalog ${HOSTILE} AB`);
    await page.getByLabel(/^Address line 1/).fill("Storgatan 1");
    await page.getByLabel(/^City/).fill("Stockholm");
    await page.getByRole("button", { name: "Save legal details" }).click();
    await page.getByRole("alert").filter({ hasText: "Enter the country of the address." }).waitFor();
    const legal = page.getByRole("form", { name: "Legal details" });
    await legal.getByLabel(/^Country/).fill("se");
    await legal.getByLabel(/^Postal code/).fill("111 22");
    await page.getByRole("button", { name: "Save legal details" }).click();
    await page.getByText("Legal details saved.").waitFor();
    const saved = await api<LegalDetails>("GET", `/v1/organizations/${orgId}/legal-details`);
    expect(saved.registered_name).toBe(`Catalog ${HOSTILE} AB`);
    expect(saved.address).toEqual({
      line1: "Storgatan 1",
      line2: null,
      postal_code: "111 22",
      city: "Stockholm",
      state: null,
      country: "SE",
    });

    const adding = page.getByRole("form", { name: "Add a registration" });
    await adding.getByLabel(/^Country/).fill("SE");
    await adding.getByLabel(/^Registration number/).fill("SE556677889901");
    await adding.getByRole("button", { name: "Add registration" }).click();
    await page.getByText("Registration added").waitFor();
    const rows = page.getByRole("table", { name: "Current registrations" }).getByRole("row");
    await rows.filter({ hasText: "Sweden (SE)" }).filter({ hasText: "SE556677889901" }).waitFor();
    // Antarctica levies no tax the rate table knows: the API says so, next to the country.
    await adding.getByLabel(/^Country/).fill("AQ");
    await adding.getByRole("button", { name: "Add registration" }).click();
    await adding.getByText("No tax of this country is in the rate table.").first().waitFor();
    expect(await adding.getByLabel(/^Country/).getAttribute("aria-invalid")).toBe("true");
    expect((await api<LegalDetails>("GET", `/v1/organizations/${orgId}/legal-details`)).tax_registrations).toEqual([
      { country: "SE", state: null, scheme: "standard", number: "SE556677889901" },
    ]);
    expect(await page.locator("main img").count()).toBe(0);
    await checkDashboardWidths(page, "settings-legal");

    await page.getByRole("button", { name: "Remove the registration in Sweden (SE)" }).click();
    await page.getByText("The registration in Sweden (SE) is removed").waitFor();
    expect((await api<LegalDetails>("GET", `/v1/organizations/${orgId}/legal-details`)).tax_registrations).toEqual([]);
    await context.close();

    const reader = await signedIn(readOnly);
    await visit(reader.page, "/settings", "Settings");
    expect(await reader.page.getByLabel(/^Registered name/).inputValue()).toBe(`Catalog ${HOSTILE} AB`);
    expect(await reader.page.getByRole("button", { name: "Save legal details" }).isDisabled()).toBe(true);
    expect(await reader.page.getByRole("button", { name: "Add registration" }).isDisabled()).toBe(true);
    await reader.page.getByText("Disabled: your token lacks the organizations:write scope.").first().waitFor();
    await reader.context.close();
  });

  it("Lists: a page at a time, moved through by keyboard; the page is in the address, Back returns to it", async () => {
    const { context, page } = await signedIn();
    await visit(page, "/products", "Products");
    const total = (await api<{ pagination: { total_count: number } }>("GET", "/v1/products/?limit=1")).pagination.total_count;
    expect(total).toBeGreaterThan(40);
    const caption = (n: number) => `Products, page ${n} of 3 (${total} in all)`;
    await page.getByRole("table", { name: caption(1) }).waitFor();
    expect(
      await page
        .getByRole("table", { name: caption(1) })
        .getByRole("row")
        .count(),
    ).toBe(21);
    const pages = page.getByRole("navigation", { name: "Pages of products" });
    expect(await pages.getByRole("link", { name: "Previous page" }).count()).toBe(0);
    await checkDashboardWidths(page, "products-paged");

    // Tab to "Next page" and press Enter, as a keyboard user would.
    await pages.getByRole("link", { name: "Last page" }).waitFor();
    let reached = false;
    for (let step = 0; step < 80 && !reached; step += 1) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate("document.activeElement?.textContent === 'Next page'");
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("table", { name: caption(2) }).waitFor();
    expect(new URL(page.url()).search).toBe("?page=2");
    expect(await page.evaluate("document.activeElement?.tagName")).toBe("H1");

    await pages.getByRole("link", { name: "Last page" }).click();
    await page.getByRole("table", { name: caption(3) }).waitFor();
    expect(
      await page
        .getByRole("table", { name: caption(3) })
        .getByRole("row")
        .count(),
    ).toBe(1 + total - 40);
    expect(await pages.getByRole("link", { name: "Next page" }).count()).toBe(0);
    await page.goBack();
    await page.getByRole("table", { name: caption(2) }).waitFor();

    // A page past the last says so, and links back.
    await visit(page, "/products?page=9", "Products");
    await page.getByText("There is no such page. Go to the first page.").waitFor();
    await pages.getByRole("link", { name: "First page" }).click();
    await page.getByRole("table", { name: caption(1) }).waitFor();
    await context.close();
  });
});
