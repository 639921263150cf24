import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.ts";
import { ORDERS_PER_PAGE } from "../../../src/modules/portal-page/portal-page.data.ts";
import { createTestContext, type TestContext } from "../../helpers/context.ts";
import {
  createCustomer,
  createLicenseKey,
  createOrder,
  createOrganization,
  createProduct,
  createSubscription,
  tamperLastCharacter,
} from "../../helpers/factories.ts";
import { createMember, createMemberSessionToken, enableMembers } from "../customers/member-helpers.ts";
import { addActivation, openPortalSession, signInToPortal, type PortalLink } from "./portal-page-helpers.ts";

/** The portal's pages over HTTP (no browser): sign-in, headers, escaping, every action and its refusals. */
let ctx: TestContext;
let orgId: string;
let slug: string;
let link: PortalLink;
let cookie: string;
let customerId: string;
let otherCustomerId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const org = await createOrganization(ctx.deps, `Portal <b>Shop</b> ${Date.now()}`);
  orgId = org.id;
  slug = org.slug;
  const customer = await createCustomer(ctx.deps, orgId, { email: "ada@example.com", name: "Ada" });
  customerId = customer.id;
  otherCustomerId = (await createCustomer(ctx.deps, orgId)).id;
  link = await openPortalSession(ctx, orgId, customerId);
  cookie = await signIn(link);
});
afterAll(() => ctx.close());

const signIn = (portal: PortalLink) => signInToPortal(ctx, portal);

const page = (url: string, withCookie = cookie) => ctx.request({ method: "GET", url, headers: withCookie ? { cookie: withCookie } : {} });
const post = (url: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  ctx.request({
    method: "POST",
    url,
    headers: {
      cookie,
      origin: "http://localhost:80",
      host: "localhost:80",
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    payload: new URLSearchParams(form).toString(),
  });
const base = () => `/${slug}/portal`;

describe("signing in with the session's link", () => {
  it("turns the link's token into an HttpOnly cookie scoped to the portal, and drops it from the address", async () => {
    expect(link.url.startsWith(`https://checkout.test/${slug}/portal?customer_session_token=polar_cst_`)).toBe(true);
    const response = await ctx.request({ method: "GET", url: `${link.path}&theme=dark` });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/${slug}/portal?theme=dark`);
    expect(response.headers["set-cookie"]).toBe(`portal_session=${link.token}; Path=/${slug}/portal; HttpOnly; SameSite=Lax`);
    expect(response.headers["referrer-policy"]).toBe("no-referrer");
    expect((await page(base())).headers["referrer-policy"]).toBe("same-origin");
  });

  it("refuses an unknown, tampered, foreign or missing session with a readable page, and an unknown slug with a 404 page", async () => {
    const other = await createOrganization(ctx.deps);
    const foreign = await openPortalSession(ctx, other.id, (await createCustomer(ctx.deps, other.id)).id);
    for (const token of ["polar_cst_unknown", tamperLastCharacter(link.token), foreign.token, "x".repeat(5_000)]) {
      const response = await ctx.request({ method: "GET", url: `${base()}?customer_session_token=${encodeURIComponent(token)}` });
      expect(response.statusCode, token.slice(0, 20)).toBe(401);
      expect(response.headers["set-cookie"]).toBeUndefined();
      expect(response.body).toContain("Email me a sign-in code");
    }
    expect((await page(base(), "")).statusCode).toBe(401);
    expect((await page(base(), `portal_session=${foreign.token}`)).statusCode).toBe(401);
    const unknown = await page(`/no-such-shop-${Date.now()}/portal`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("opens for a member session of an owner or billing manager, and refuses a plain member's with the anchor's words", async () => {
    const team = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, team.id);
    const teamCustomer = await createCustomer(ctx.deps, team.id);
    const enterWith = async (token: string) =>
      ctx.request({ method: "GET", url: `/${team.slug}/portal?customer_session_token=${encodeURIComponent(token)}` });
    for (const role of ["owner", "billing_manager"] as const) {
      const member = await createMember(ctx.deps, teamCustomer, role);
      const response = await enterWith(await createMemberSessionToken(ctx.deps, teamCustomer.id, member.id));
      expect(response.statusCode, role).toBe(303);
      const cookieOfMember = String(response.headers["set-cookie"]).split(";")[0]!;
      expect((await page(`/${team.slug}/portal`, cookieOfMember)).statusCode).toBe(200);
    }
    const plain = await createMember(ctx.deps, teamCustomer, "member");
    const refused = await enterWith(await createMemberSessionToken(ctx.deps, teamCustomer.id, plain.id));
    expect(refused.statusCode).toBe(403);
    expect(refused.headers["set-cookie"]).toBeUndefined();
    expect(refused.body).toContain("Only owners and billing managers can access billing features.");
  });

  it("links back to the session's return URL, escaped, and never to a script URL", async () => {
    const back = await openPortalSession(ctx, orgId, customerId, { return_url: "https://shop.example/account?a=1&b=2" });
    const withReturn = await signIn(back);
    expect((await page(base(), withReturn)).body).toContain(
      '<a href="https://shop.example/account?a=1&amp;b=2">Back to Portal &lt;b&gt;Shop',
    );
    const scripted = await openPortalSession(ctx, orgId, customerId);
    await ctx.deps.db
      .updateTable("customer_sessions")
      .set({ return_url: "javascript:alert(1)" })
      .where("customer_id", "=", customerId)
      .execute();
    expect((await page(base(), await signIn(scripted))).body).not.toContain("javascript:");
  });

  it("keeps the session token out of the request log", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = await buildApp(
      { ...ctx.deps, config: { ...ctx.deps.config, logLevel: "info" } },
      { logger: { stream }, services: ctx.services },
    );
    await logged.inject({ method: "GET", url: link.path });
    await logged.inject({ method: "GET", url: base(), headers: { cookie } });
    await logged.close();
    expect(lines.join("")).toContain("customer_session_token=[REDACTED]");
    expect(lines.join("")).not.toContain(link.token);
  });
});

describe("the portal page", () => {
  it("shows orders with amounts and status, subscriptions, keys and billing details, escaped, with strict headers", async () => {
    const product = (await createProduct(ctx.deps, orgId, { product: { name: "<script>alert(1)</script> Box" } })).product;
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    await createOrder(ctx.deps, orgId, { customer, product, amounts: { subtotal: 4200 } });
    await createOrder(ctx.deps, orgId, { amounts: { subtotal: 9900 } }); // another customer's
    const response = await page(base());
    expect(response.statusCode).toBe(200);
    const csp = String(response.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers["x-frame-options"]).toBe("DENY");
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.body).toContain("&lt;script&gt;alert(1)&lt;/script&gt; Box");
    expect(response.body).not.toContain("<script>alert(1)");
    expect(response.body).toContain("Portal &lt;b&gt;Shop&lt;/b&gt;");
    expect(response.body).toContain("$42.00");
    expect(response.body).not.toContain("$99.00");
    expect(response.body).toContain("<dd>paid</dd>");
    expect(response.body).not.toContain(link.token);
  });
});

describe("the orders, a page at a time", () => {
  const ORDERS = ORDERS_PER_PAGE + 3;
  let pagedBase: string;
  let pagedCookie: string;
  let orderIds: string[];
  beforeAll(async () => {
    const org = await createOrganization(ctx.deps);
    const customer = await createCustomer(ctx.deps, org.id);
    orderIds = [];
    for (let i = 0; i < ORDERS; i++) orderIds.push((await createOrder(ctx.deps, org.id, { customer, product: null })).id);
    await createOrder(ctx.deps, org.id, { product: null }); // another customer's
    pagedCookie = await signIn(await openPortalSession(ctx, org.id, customer.id));
    pagedBase = `/${org.slug}/portal`;
  });
  const shownOrders = (html: string) => [...html.matchAll(/id="order-([0-9a-f-]{36})"/g)].map((m) => m[1]!);

  it("shows the newest page first and links the older ones; together the pages show each of the customer's orders once", async () => {
    const first = await page(pagedBase, pagedCookie);
    expect(first.statusCode).toBe(200);
    expect(shownOrders(first.body)).toHaveLength(ORDERS_PER_PAGE);
    expect(first.body).toContain(`href="${pagedBase}?orders_page=2#orders" rel="next"`);
    expect(first.body).not.toContain('rel="prev"');
    const second = await page(`${pagedBase}?orders_page=2`, pagedCookie);
    expect(shownOrders(second.body)).toHaveLength(ORDERS - ORDERS_PER_PAGE);
    expect(second.body).toContain(`href="${pagedBase}?orders_page=1#orders" rel="prev"`);
    expect(second.body).not.toContain('rel="next"');
    expect([...shownOrders(first.body), ...shownOrders(second.body)].sort()).toEqual([...orderIds].sort());
  });

  it("shows the first page for a page that is no whole number from 1, and an empty page past the last", async () => {
    const firstPage = shownOrders((await page(pagedBase, pagedCookie)).body);
    for (const asked of ["0", "-1", "abc", "1.5", "1e3", "9".repeat(40), "%3Cb%3E"]) {
      const response = await page(`${pagedBase}?orders_page=${asked}`, pagedCookie);
      expect(response.statusCode, asked).toBe(200);
      expect(shownOrders(response.body), asked).toEqual(firstPage);
    }
    const past = await page(`${pagedBase}?orders_page=7`, pagedCookie);
    expect(past.statusCode).toBe(200);
    expect(shownOrders(past.body)).toEqual([]);
    expect(past.body).toContain("There are no orders on this page.");
    expect(past.body).toContain(`href="${pagedBase}?orders_page=2#orders" rel="prev"`);
  });
});

describe("actions", () => {
  it("refuses a form posted from another site or without an origin, and writes nothing", async () => {
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of crossSite) {
      const response = await post(`${base()}/billing`, { billing_name: "Mallory", country: "FR" }, headers);
      expect(response.statusCode).toBe(403);
    }
    const row = await ctx.deps.db.selectFrom("customers").select("billing_name").where("id", "=", customerId).executeTakeFirstOrThrow();
    expect(row.billing_name).toBeNull();
  });

  it("saves billing details, and shows what to fix next to the field when the services refuse", async () => {
    const bad = await post(`${base()}/billing`, { billing_name: "Ada Ltd", country: "US", line1: "1 Main", city: "X", state: "ZZ" });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-state"[^>]*aria-invalid="true"/);
    const unknownCountry = await post(`${base()}/billing`, { billing_name: "Ada Ltd", country: "XX" });
    expect(unknownCountry.statusCode).toBe(422);
    expect(unknownCountry.body).toContain('id="f-country-error"');
    const tooLong = await post(`${base()}/billing`, { billing_name: "a".repeat(300) });
    expect(tooLong.statusCode).toBe(422);
    let row = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    expect(row.billing_name).toBeNull();

    const saved = await post(`${base()}/billing`, {
      billing_name: "Ada Ltd",
      country: "FR",
      line1: "1 rue de Rivoli",
      postal_code: "75001",
      city: "Paris",
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${base()}?done=billing-saved#billing`);
    row = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    expect(row.billing_name).toBe("Ada Ltd");
    const after = await page(`${base()}?done=billing-saved`);
    expect(after.body).toContain("Your billing details are saved.");
    expect(after.body).toContain('value="1 rue de Rivoli"');
    // An unknown notice says nothing: the address never writes text onto the page.
    expect((await page(`${base()}?done=%3Cb%3Ehi`)).body).not.toContain("&lt;b&gt;hi");
  });

  it("asks for the billing details an invoice needs, then generates it", async () => {
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    const order = await createOrder(ctx.deps, orgId, { customer, billing: { name: null, address: null } });
    const form = await page(`${base()}/orders/${order.id}/invoice`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain("Generate invoice");
    const missing = await post(`${base()}/orders/${order.id}/invoice`, { billing_name: "", country: "" });
    expect(missing.statusCode).toBe(422);
    expect(missing.body).toContain('id="f-billing_name-error"');
    expect(
      (await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow()).invoice_requested_at,
    ).toBeNull();

    const generated = await post(`${base()}/orders/${order.id}/invoice`, { billing_name: "Ada Ltd", country: "FR", city: "Paris" });
    expect(generated.statusCode).toBe(303);
    expect(generated.headers.location).toBe(`${base()}/orders/${order.id}/invoice?pending=1`);
    const row = await ctx.deps.db.selectFrom("orders").selectAll().where("id", "=", order.id).executeTakeFirstOrThrow();
    expect(row.billing_name).toBe("Ada Ltd");
    expect(row.invoice_requested_at).not.toBeNull();
    const pending = await page(generated.headers.location as string);
    expect(pending.body).toContain("Your invoice is being prepared");
  });

  it("answers another customer's, another organization's and malformed ids with the 404 page, writing nothing", async () => {
    const neighbourOrder = await createOrder(ctx.deps, orgId);
    const neighbourKey = await createLicenseKey(ctx.deps, orgId, otherCustomerId);
    const activation = await addActivation(ctx, orgId, neighbourKey.id, "their laptop");
    const neighbourCustomer = await ctx.deps.db
      .selectFrom("customers")
      .selectAll()
      .where("id", "=", otherCustomerId)
      .executeTakeFirstOrThrow();
    const neighbourSubscription = await createSubscription(ctx.deps, orgId, { customer: neighbourCustomer });
    const refused = [
      await page(`${base()}/orders/${neighbourOrder.id}/invoice`),
      await page(`${base()}/orders/${neighbourOrder.id}/receipt`),
      await page(`${base()}/orders/not-a-uuid/invoice`),
      await post(`${base()}/orders/${neighbourOrder.id}/invoice`, { billing_name: "X", country: "FR" }),
      await post(`${base()}/license-keys/${neighbourKey.id}/activations/${activation}/deactivate`),
      await post(`${base()}/license-keys/${neighbourKey.id}/activations/nope/deactivate`),
      await post(`${base()}/subscriptions/${neighbourSubscription.id}/cancel`),
    ];
    for (const response of refused) expect(response.statusCode).toBe(404);
    const live = await ctx.deps.db
      .selectFrom("license_key_activations")
      .select("deleted_at")
      .where("id", "=", activation)
      .executeTakeFirstOrThrow();
    expect(live.deleted_at).toBeNull();
    const subscription = await ctx.deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("id", "=", neighbourSubscription.id)
      .executeTakeFirstOrThrow();
    expect(subscription.cancel_at_period_end).toBe(false);
  });

  it("deactivates an activation of the customer's own key", async () => {
    const key = await createLicenseKey(ctx.deps, orgId, customerId);
    const activation = await addActivation(ctx, orgId, key.id, "Work <laptop>");
    const before = await page(base());
    expect(before.body).toContain("Work &lt;laptop&gt;");
    const response = await post(`${base()}/license-keys/${key.id}/activations/${activation}/deactivate`);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${base()}?done=activation-deactivated#license-keys`);
    expect((await page(base())).body).not.toContain("Work &lt;laptop&gt;");
  });

  it("cancels a subscription at the period end and resumes it", async () => {
    const customer = await ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();
    const subscription = await createSubscription(ctx.deps, orgId, { customer });
    const cancel = await post(`${base()}/subscriptions/${subscription.id}/cancel`);
    expect(cancel.statusCode).toBe(303);
    const row = () => ctx.deps.db.selectFrom("subscriptions").selectAll().where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect((await row()).cancel_at_period_end).toBe(true);
    expect((await page(base())).body).toContain("Resume subscription");
    // Resuming needs a payment method on file: the refusal is shown on the portal, nothing changes.
    const refused = await post(`${base()}/subscriptions/${subscription.id}/uncancel`);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain("Add a payment method");
    expect((await row()).cancel_at_period_end).toBe(true);
  });

  it("replaces the payment method with the card the form tokenized, and refuses a missing one", async () => {
    const missing = await post(`${base()}/payment-method`, { confirmation_token_id: "" });
    expect(missing.statusCode).toBe(422);
    const saved = await post(`${base()}/payment-method`, { confirmation_token_id: "tok_visa" });
    expect(saved.statusCode).toBe(303);
    expect((await page(base())).body).toMatch(/visa ending in 4242/i);
  });
});
