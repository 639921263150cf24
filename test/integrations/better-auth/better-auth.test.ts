import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkout, polar, portal, usage, webhooks } from "@polar-sh/better-auth";
import { Polar } from "@polar-sh/sdk";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AvailableScope } from "../../../src/modules/organizations/access-tokens.schemas.ts";
import { createTestContext, listen, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, createProduct } from "../../helpers/factories.ts";
import { createWebhookEndpoint, fanOutPending, waitFor } from "../../helpers/webhooks.ts";
import { createWebhookDeliveryService } from "../../../src/modules/webhooks/webhook-delivery.service.ts";
import { BUYER } from "../../modules/emails/email-helpers.ts";

/**
 * The official better-auth plugin (`@polar-sh/better-auth` 1.8, on the 0.x SDK it requires) in a
 * real better-auth app on the test database, pointed at this server: every hook and endpoint a
 * sign-up, purchase, portal visit, usage report, rename and account deletion go through. The plugin
 * logs a failing call to this server and answers a generic error, so each step asserts what the
 * server now holds, not only that the plugin answered.
 */
const SCOPES: AvailableScope[] = [
  "customers:read",
  "customers:write",
  "customer_sessions:write",
  "checkouts:write",
  "subscriptions:read",
  "events:write",
];

let ctx: TestContext;
let authServer: Server;
let authBase: string;
let pool: Pool;
let organizationId: string;
let productId: string;
const paidOrders: string[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  const apiBase = await listen(ctx);
  organizationId = (await createOrganization(ctx.deps)).id;
  const { product } = await createProduct(ctx.deps, organizationId, {
    product: { name: "Pro", recurring_interval: "month", recurring_interval_count: 1 },
    prices: [{ amount_type: "fixed", price_amount: 1_500 }],
    benefits: [{ type: "license_keys", description: "Pro licence", properties: { prefix: "PRO" } }],
  });
  productId = product.id;
  const client = new Polar({ accessToken: await createOrganizationToken(ctx.deps, organizationId, SCOPES), serverURL: apiBase });

  authServer = createServer();
  await new Promise<void>((resolve) => authServer.listen(0, "127.0.0.1", resolve));
  authBase = `http://127.0.0.1:${(authServer.address() as AddressInfo).port}`;
  const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, {
    url: `${authBase}/api/auth/polar/webhooks`,
    events: ["order.paid"],
  });

  pool = new Pool({ connectionString: ctx.database.url });
  const auth = betterAuth({
    database: pool,
    baseURL: authBase,
    secret: "better-auth-integration-test-secret-0123456789",
    emailAndPassword: { enabled: true },
    user: { deleteUser: { enabled: true } },
    plugins: [
      polar({
        client,
        createCustomerOnSignUp: true,
        use: [
          checkout({ products: [{ productId, slug: "pro" }], successUrl: "/welcome", authenticatedUsersOnly: true }),
          portal(),
          usage(),
          webhooks({
            secret: endpoint.secret,
            onOrderPaid: async (payload) => {
              paidOrders.push(payload.data.id);
            },
          }),
        ],
      }),
    ],
  });
  await (await getMigrations(auth.options)).runMigrations();
  const handle = toNodeHandler(auth);
  authServer.on("request", (request, response) => void handle(request, response));
});

afterAll(async () => {
  await new Promise<void>((resolve) => authServer.close(() => resolve()));
  await pool.end();
  await ctx.close();
});

/** A browser of the better-auth app: keeps its session cookie and sends the app's own origin. */
function appUser() {
  let cookie = "";
  return async <T>(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${authBase}/api/auth${path}`, {
      method,
      headers: { origin: authBase, cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = response.headers.getSetCookie().map((line) => line.split(";")[0]);
    if (setCookie.length > 0) cookie = setCookie.join("; ");
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
}

const customerByEmail = (email: string) =>
  ctx.deps.db
    .selectFrom("customers")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("email", "=", email)
    .executeTakeFirst();

describe("@polar-sh/better-auth against this server", () => {
  const user = appUser();
  const email = "grace@example.com";
  let userId = "";

  it("signs up: the plugin creates the customer and links it to the user by external id", async () => {
    const signUp = await user<{ user: { id: string } }>("POST", "/sign-up/email", {
      email,
      password: "correct horse battery",
      name: "Grace",
    });
    expect(signUp.status).toBe(200);
    userId = signUp.body.user.id;
    const customer = await customerByEmail(email);
    expect(customer).toMatchObject({ name: "Grace", external_id: userId, deleted_at: null });
  });

  it("checks out: the plugin's checkout link is a session for the user's customer, and paying it fires order.paid to the plugin", async () => {
    const started = await user<{ url: string; redirect: boolean }>("POST", "/checkout", { slug: "pro", redirect: false });
    expect(started.status).toBe(200);
    const clientSecret = new URL(started.body.url).pathname.split("/").pop();
    const confirmed = await ctx.request({
      method: "POST",
      url: `/v1/checkouts/client/${clientSecret}/confirm`,
      payload: { ...BUYER, customer_email: email, confirmation_token_id: "tok_visa" },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const order = await ctx.deps.db
      .selectFrom("orders")
      .innerJoin("customers", "customers.id", "orders.customer_id")
      .select(["orders.id", "orders.status"])
      .where("customers.external_id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(order.status).toBe("paid");

    const delivery = createWebhookDeliveryService(ctx.deps);
    await fanOutPending(ctx.deps, delivery);
    const [endpoint] = await ctx.deps.db
      .selectFrom("webhook_endpoints")
      .select("id")
      .where("organization_id", "=", organizationId)
      .execute();
    await delivery.deliverEndpoint(endpoint!.id);
    await waitFor(() => paidOrders.includes(order.id));
  });

  it("reads the customer's state, benefits, subscriptions and orders through the 0.x SDK's parsers", async () => {
    const state = await user<{ activeSubscriptions: { productId: string }[]; grantedBenefits: unknown[] }>("GET", "/customer/state");
    expect(state.status).toBe(200);
    expect(state.body.activeSubscriptions.map((subscription) => subscription.productId)).toEqual([productId]);
    expect(state.body.grantedBenefits).toHaveLength(1);

    const benefits = await user<{ result: { items: { benefit: { metadata: object } }[] } }>("GET", "/customer/benefits/list");
    expect(benefits.status).toBe(200);
    expect(benefits.body.result.items.map((grant) => grant.benefit.metadata)).toEqual([{}]);

    const subscriptions = await user<{ result: { items: { productId: string }[] } }>("GET", "/customer/subscriptions/list");
    expect(subscriptions.status).toBe(200);
    expect(subscriptions.body.result.items.map((subscription) => subscription.productId)).toEqual([productId]);

    const orders = await user<{ result: { items: { productId: string; totalAmount: number }[] } }>("GET", "/customer/orders/list");
    expect(orders.status).toBe(200);
    expect(orders.body.result.items).toMatchObject([{ productId }]);
  });

  it("opens the portal with a customer session of the user's customer", async () => {
    const opened = await user<{ url: string }>("GET", "/customer/portal");
    expect(opened.status).toBe(200);
    const token = new URL(opened.body.url).searchParams.get("customer_session_token");
    const me = await ctx.request({ method: "GET", url: "/v1/customer-portal/customers/me", token });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json<{ email: string }>().email).toBe(email);
  });

  it("reports usage as an event of the user's customer and lists its meters", async () => {
    const ingested = await user<{ inserted: number }>("POST", "/usage/ingest", { event: "api_call", metadata: { tokens: 12 } });
    expect(ingested).toEqual({ status: 200, body: { inserted: 1, duplicates: 0 } });
    const event = await ctx.deps.db.selectFrom("events").selectAll().where("name", "=", "api_call").executeTakeFirstOrThrow();
    expect(event.external_customer_id).toBe(userId);

    const meters = await user<{ result: { items: unknown[] } }>("GET", "/usage/meters/list");
    expect(meters.status).toBe(200);
    expect(meters.body.result.items).toEqual([]);
  });

  it("renames the user: the plugin updates the customer by external id", async () => {
    const renamed = await user<{ status: boolean }>("POST", "/update-user", { name: "Grace Hopper" });
    expect(renamed.status).toBe(200);
    await waitFor(async () => (await customerByEmail(email))?.name === "Grace Hopper");
  });

  it("deletes the user: the plugin deletes the customer, its subscription ends, its orders are kept", async () => {
    const deleted = await user<{ success: boolean }>("POST", "/delete-user", { password: "correct horse battery" });
    expect(deleted.status).toBe(200);
    await waitFor(async () => (await customerByEmail(email))?.deleted_at != null);
    const subscriptions = await ctx.deps.db
      .selectFrom("subscriptions")
      .select("status")
      .where("organization_id", "=", organizationId)
      .execute();
    expect(subscriptions).toEqual([{ status: "canceled" }]);
    const orders = await ctx.deps.db.selectFrom("orders").select("id").where("organization_id", "=", organizationId).execute();
    expect(orders).toHaveLength(1);
  });
});
