import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { expireCheckoutNow } from "../checkouts/checkout-helpers.ts";
import { licensedProduct, payCheckout } from "../emails/email-helpers.ts";

/** The page routes over HTTP (no browser): statuses, headers, escaping, assets. */
let ctx: TestContext;
let token: string;
let productId: string;
let orgId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const org = await createOrganization(ctx.deps, `<img src=x onerror=alert(1)> "Shop"`);
  orgId = org.id;
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
  productId = (await createProduct(ctx.deps, org.id, { product: { name: "</script><script>alert(1)</script>" } })).product.id;
});
afterAll(() => ctx.close());

async function openCheckout(extra: Record<string, unknown> = {}) {
  const response = await ctx.request({ method: "POST", url: "/v1/checkouts/", token, payload: { products: [productId], ...extra } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string; url: string; client_secret: string }>();
}

const pathOf = (url: string) => new URL(url).pathname;
const csp = (headers: Record<string, unknown>) => String(headers["content-security-policy"]);

describe("GET /checkout/{client_secret}", () => {
  it("serves the form at the session's url: strict CSP, no framing, no referrer, the page data escaped", async () => {
    const checkout = await openCheckout();
    const response = await ctx.request({ method: "GET", url: pathOf(checkout.url) });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(csp(response.headers)).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; /);
    expect(csp(response.headers)).toContain("frame-ancestors 'none'");
    // Product medias load from PUBLIC_BASE_URL (another origin here), where the local store serves them too.
    expect(csp(response.headers)).toContain(`; img-src 'self' data: ${new URL(ctx.deps.config.publicBaseUrl).origin}; `);
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
    expect(response.headers["cache-control"]).toBe("no-store");
    // Markup from the merchant's names never becomes markup on the page.
    expect(response.body).not.toContain("<img src=x");
    expect(response.body).not.toContain("</script><script>alert(1)");
    expect(response.body).toContain("&lt;img src=x onerror=alert(1)&gt; &quot;Shop&quot;");
    const data = JSON.parse(/<script type="application\/json" id="page-data">([^<]*)<\/script>/.exec(response.body)![1]!);
    expect(data).toMatchObject({ view: "form", paymentForm: { kind: "sandbox_card" }, embedOrigin: null });
    expect(data.checkout.id).toBe(checkout.id);
    // The buyer's view only: never an organization token, nor the merchant's fields.
    expect(response.body).not.toMatch(/polar_oat_/);
    expect(data.checkout).not.toHaveProperty("metadata");
  });

  it("is framed only by the embedding origin, and only the one the session names when it names one", async () => {
    const open = await openCheckout();
    const embedded = await ctx.request({
      method: "GET",
      url: `${pathOf(open.url)}?embed=true&embed_origin=${encodeURIComponent("https://shop.example")}&theme=dark`,
    });
    expect(csp(embedded.headers)).toContain("frame-ancestors https://shop.example");
    expect(embedded.headers["x-frame-options"]).toBeUndefined();
    expect(embedded.body).toContain('<html lang="en" data-theme="dark">');
    expect(embedded.body).toContain('"embedOrigin":"https://shop.example"');

    const bound = await openCheckout({ embed_origin: "https://shop.example" });
    const other = await ctx.request({
      method: "GET",
      url: `${pathOf(bound.url)}?embed=true&embed_origin=${encodeURIComponent("https://evil.example")}`,
    });
    expect(csp(other.headers)).toContain("frame-ancestors 'none'");
    expect(other.body).toContain('"embedOrigin":null');

    for (const origin of ["javascript:alert(1)", "https://shop.example/path", "not a url", "https://shop.example'; script-src *"]) {
      const odd = await ctx.request({ method: "GET", url: `${pathOf(open.url)}?embed=true&embed_origin=${encodeURIComponent(origin)}` });
      expect(odd.statusCode).toBe(200);
      expect(csp(odd.headers)).toContain("frame-ancestors 'none'");
    }
    const badTheme = await ctx.request({ method: "GET", url: `${pathOf(open.url)}?theme=%22%3E&theme=dark&embed=1` });
    expect(badTheme.statusCode).toBe(200);
    expect(badTheme.body).toContain('<html lang="en">');
  });

  it("answers readable HTML pages, never JSON or a 500, for unknown, malformed, overlong and expired secrets", async () => {
    for (const secret of ["polar_c_unknown", "nope", "polar_c_" + "a".repeat(5_000), "polar_c_%3Cscript%3E"]) {
      const response = await ctx.request({ method: "GET", url: `/checkout/${secret}` });
      expect(response.statusCode, secret.slice(0, 40)).toBe(404);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.body).toContain("<h1>Checkout not found</h1>");
      // The page's own script only: nothing from the address becomes markup.
      expect(response.body.match(/<script\b/g)).toHaveLength(2);
      expect(response.body).not.toContain("<script>alert");
    }
    const checkout = await openCheckout();
    await expireCheckoutNow(ctx, checkout.id);
    const expired = await ctx.request({ method: "GET", url: pathOf(checkout.url) });
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain("<h1>Checkout expired</h1>");
  });

  it("says what became of a paid or failed session; its confirmation page sends an open one back to the form", async () => {
    const checkout = await openCheckout({ return_url: "https://shop.example/back?a=1&b=2" });
    const confirmation = `${pathOf(checkout.url)}/confirmation`;
    const early = await ctx.request({ method: "GET", url: confirmation });
    expect(early.statusCode).toBe(303);
    expect(early.headers.location).toBe(pathOf(checkout.url));

    await ctx.deps.db.updateTable("checkouts").set({ status: "succeeded" }).where("id", "=", checkout.id).execute();
    for (const url of [pathOf(checkout.url), confirmation]) {
      const paid = await ctx.request({ method: "GET", url });
      expect(paid.statusCode).toBe(200);
      expect(paid.body).toContain("<h1>Thank you!</h1>");
      expect(paid.body).toContain('href="https://shop.example/back?a=1&amp;b=2"');
    }
    await ctx.deps.db.updateTable("checkouts").set({ status: "failed" }).where("id", "=", checkout.id).execute();
    const failed = await ctx.request({ method: "GET", url: pathOf(checkout.url) });
    expect(failed.body).toContain("<h1>Payment failed</h1>");
  });

  it("after the payment, shows what the order's email shows: the order, its documents, the license key in full, the portal", async () => {
    const product = await licensedProduct(ctx, orgId, "<b>Pro</b> licence");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "buyer@example.com" });
    const checkout = await ctx.deps.db
      .selectFrom("checkouts")
      .select("client_secret")
      .where("id", "=", order.checkout_id!)
      .executeTakeFirstOrThrow();
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .select("key")
      .where("customer_id", "=", order.customer_id)
      .executeTakeFirstOrThrow();
    const slug = (await ctx.deps.db.selectFrom("organizations").select("slug").where("id", "=", orgId).executeTakeFirstOrThrow()).slug;

    const page = await ctx.request({ method: "GET", url: `/checkout/${checkout.client_secret}/confirmation` });
    expect(page.statusCode).toBe(200);
    expect(csp(page.headers)).toMatch(/^default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; /);
    const body = page.body;
    expect(body).toContain("<h1>Thank you!</h1>");
    expect(body).toContain("A confirmation is on its way to buyer@example.com.");
    expect(body).toContain("&lt;b&gt;Pro&lt;/b&gt; licence");
    expect(body).not.toContain("<b>Pro</b>");
    expect(body).toContain(`<code class="license-key">${key.key}</code>`);
    expect(body).toContain("Up to 3 activations");
    expect(body).toContain(`Receipt number: ${order.receipt_number}`);
    expect(body).toContain(`<tr class="total"><td>Total</td><td>$${(order.total_amount / 100).toFixed(2)}</td></tr>`);
    const links = [...body.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!.replaceAll("&amp;", "&"));
    const documentLink = (document: string) =>
      new RegExp(`^${ctx.deps.config.publicBaseUrl}/documents/orders/${order.id}/${document}\\?expires=\\d+&signature=`);
    expect(links.filter((link) => documentLink("receipt").test(link))).toHaveLength(1);
    expect(links.filter((link) => documentLink("invoice").test(link))).toHaveLength(1);
    expect(links).toContain(`${ctx.deps.config.checkoutBaseUrl}/${slug}/portal`);
    // The page gives the buyer no session: the portal asks them to sign in.
    expect(body).not.toMatch(/polar_(cst|mst|oat|pat)_/);
  });

  it("keeps the client secret out of the request log", async () => {
    const checkout = await openCheckout();
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = await buildApp(
      { ...ctx.deps, config: { ...ctx.deps.config, logLevel: "info" } },
      { logger: { stream }, services: ctx.services },
    );
    await app.inject({ method: "GET", url: pathOf(checkout.url) });
    await app.inject({ method: "GET", url: `${pathOf(checkout.url)}/confirmation?embed=true` });
    await app.close();
    expect(lines.join("")).toContain("/checkout/[REDACTED]");
    expect(lines.join("")).not.toContain(checkout.client_secret);
  });
});

describe("the page's files", () => {
  it("carries its script and styles inline, allowed by their hashes alone; the script stays under 60 KB compressed", async () => {
    const checkout = await openCheckout();
    const response = await ctx.request({ method: "GET", url: pathOf(checkout.url) });
    const script = /<script>([\s\S]*?)<\/script>/.exec(response.body)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(response.body)![1]!;
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    expect(csp(response.headers)).toContain(`script-src ${hash(script)}; style-src ${hash(style)};`);
    expect(script).toContain("POLAR_CHECKOUT");
    expect(style).toContain("light-dark(");
    expect(gzipSync(script).length).toBeLessThan(60 * 1024);
    // No other script: the page data and the countries are JSON blocks, which no CSP runs.
    expect(response.body.match(/<script\b/g)).toHaveLength(3);
    expect(response.body.match(/<script type="application\/json"/g)).toHaveLength(2);
  });

  it("serves @polar-sh/checkout's embed script trusting this deployment's checkout origin instead of Polar's", async () => {
    const response = await ctx.request({ method: "GET", url: "/checkout/embed.js" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(response.body).toContain('"https://checkout.test"');
    expect(response.body).not.toContain("https://polar.sh,");
    expect(response.body).toContain("EmbedCheckout");
  });
});
