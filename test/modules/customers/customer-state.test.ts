import { sql } from "kysely";
import { webhooks } from "@polar-sh/sdk/2026-04";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { customerStateJobKey, STATE_CHANGED_DELAY_MS } from "../../../src/contracts/customer-state-changes.ts";
import { setSubscriptionBenefits } from "../../../src/modules/benefits/benefits.steps.ts";
import { insertBenefit, insertBenefitGrant } from "../../../src/modules/benefits/benefits.repository.ts";
import type { CustomerRow } from "../../../src/modules/customers/customers.table.ts";
import type { SubscriptionRow } from "../../../src/modules/subscriptions/subscriptions.table.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import {
  createCustomer,
  createOrganization,
  createOrganizationToken,
  createProduct,
  createSubscription,
  openOrganizationContext,
} from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { createWebhookEndpoint, deliveryHarness, fanOutPending } from "../../helpers/webhooks.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

let ctx: TestContext;
let orgId: string;
let readToken: string;
let writeToken: string;
let wrongScopeToken: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [readToken, writeToken, wrongScopeToken],
  } = await openOrganizationContext(["customers:read"], ["customers:write"], ["orders:read"]));
});
afterAll(() => ctx.close());
const { engine, receiver, closeReceivers } = deliveryHarness(() => ctx);
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

interface StateBody {
  id: string;
  type: string;
  active_subscriptions: { id: string; status: string; cancel_at_period_end: boolean; meters: unknown[] }[];
  granted_benefits: { id: string; benefit_id: string; benefit_type: string; benefit_metadata: unknown; properties: unknown }[];
  active_meters: unknown[];
}

const getState = (id: string, token: string | null = readToken) => ctx.request({ method: "GET", url: `/v1/customers/${id}/state`, token });

const setSubscription = (
  id: string,
  values: Partial<Pick<SubscriptionRow, "status" | "cancel_at_period_end" | "canceled_at" | "ends_at">>,
) => ctx.deps.db.updateTable("subscriptions").set(values).where("id", "=", id).execute();

async function grant(customer: CustomerRow, type: string, options: { granted?: boolean; properties?: object; metadata?: object } = {}) {
  const benefit = await insertBenefit(ctx.deps.db, {
    organization_id: customer.organization_id,
    type,
    description: `A ${type} benefit`,
    properties: JSON.stringify({}),
    metadata: JSON.stringify(options.metadata ?? {}),
    modified_at: null,
  });
  const now = ctx.deps.now();
  const granted = options.granted ?? true;
  await insertBenefitGrant(ctx.deps.db, {
    created_at: now,
    modified_at: null,
    organization_id: customer.organization_id,
    customer_id: customer.id,
    benefit_id: benefit.id,
    order_id: null,
    subscription_id: null,
    granted_at: granted ? now : null,
    revoked_at: granted ? null : now,
    properties: JSON.stringify(options.properties ?? {}),
  });
  return benefit.id;
}

/** A customer with a cancel-pending active subscription, a trialing one, a past-due one, and grants (one revoked). */
async function customerWithState() {
  const customer = await createCustomer(ctx.deps, orgId, {
    external_id: `ext-${Math.random()}`,
    metadata: JSON.stringify({ plan: "pro" }),
  });
  const canceling = await createSubscription(ctx.deps, orgId, { customer });
  await setSubscription(canceling.id, { cancel_at_period_end: true, canceled_at: ctx.deps.now(), ends_at: canceling.current_period_end });
  // The state lists subscriptions oldest first.
  ctx.clock.advance(1000);
  const trialing = await createSubscription(ctx.deps, orgId, { customer, trialEnd: new Date(ctx.deps.now().getTime() + 7 * 86_400_000) });
  const pastDue = await createSubscription(ctx.deps, orgId, { customer });
  await setSubscription(pastDue.id, { status: "past_due" });
  const key = await grant(customer, "license_keys", { properties: { license_key_id: UNKNOWN, display_key: "****-ABCD" } });
  const flag = await grant(customer, "feature_flag", { metadata: { feature: "beta" } });
  const revoked = await grant(customer, "custom", { granted: false });
  // Another customer's subscription and grant stay out of this state.
  const stranger = await createCustomer(ctx.deps, orgId);
  await createSubscription(ctx.deps, orgId, { customer: stranger });
  await grant(stranger, "custom");
  return { customer, canceling, trialing, pastDue, key, flag, revoked };
}

describe("GET /v1/customers/{id}/state and /v1/customers/external/{external_id}/state", () => {
  it("answers the customer with its active or trialing subscriptions (cancel-pending included, past_due not) and granted benefits", async () => {
    const { customer, canceling, trialing, key, flag } = await customerWithState();
    const response = await getState(customer.id);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<StateBody>();
    expectReferenceResponse("customers:get_state", 200, body);
    expect(body).toMatchObject({
      id: customer.id,
      type: "individual",
      email: customer.email,
      metadata: { plan: "pro" },
      active_meters: [],
    });
    expect(body.active_subscriptions.map((s) => [s.id, s.status, s.cancel_at_period_end])).toEqual([
      [canceling.id, "active", true],
      [trialing.id, "trialing", false],
    ]);
    expect(body.active_subscriptions[1]).toMatchObject({
      amount: trialing.amount,
      currency: "usd",
      recurring_interval: "month",
      trial_end: trialing.trial_end!.toISOString(),
      product_id: trialing.product_id,
      discount_id: null,
      meters: [],
    });
    expect(body.granted_benefits).toHaveLength(2);
    expect(body.granted_benefits.find((g) => g.benefit_id === key)).toMatchObject({
      benefit_type: "license_keys",
      properties: { license_key_id: UNKNOWN, display_key: "****-ABCD" },
    });
    expect(body.granted_benefits.find((g) => g.benefit_id === flag)).toMatchObject({
      benefit_type: "feature_flag",
      benefit_metadata: { feature: "beta" },
      properties: {},
    });
  });

  it("answers the same state by external ID, with a write token, and for a team customer", async () => {
    const { customer } = await customerWithState();
    const byId = (await getState(customer.id)).json<StateBody>();
    const byExternal = await ctx.request({
      method: "GET",
      url: `/v1/customers/external/${encodeURIComponent(customer.external_id!)}/state`,
      token: writeToken,
    });
    expect(byExternal.statusCode, byExternal.body).toBe(200);
    expectReferenceResponse("customers:get_state_external", 200, byExternal.json());
    expect(byExternal.json()).toEqual(byId);

    const team = await createCustomer(ctx.deps, orgId, { type: "team" });
    const teamState = await getState(team.id, writeToken);
    expect(teamState.statusCode).toBe(200);
    expectReferenceResponse("customers:get_state", 200, teamState.json());
    expect(teamState.json()).toMatchObject({ type: "team", active_subscriptions: [], granted_benefits: [], active_meters: [] });
  });

  it("is never stale: a read right after a change sees it", async () => {
    const { customer, canceling, trialing } = await customerWithState();
    expect((await getState(customer.id)).json<StateBody>().active_subscriptions).toHaveLength(2);
    await setSubscription(canceling.id, { status: "canceled" });
    expect((await getState(customer.id)).json<StateBody>().active_subscriptions.map((s) => s.id)).toEqual([trialing.id]);
    await ctx.deps.db
      .updateTable("benefit_grants")
      .set({ granted_at: null, revoked_at: ctx.deps.now() })
      .where("customer_id", "=", customer.id)
      .execute();
    expect((await getState(customer.id)).json<StateBody>().granted_benefits).toEqual([]);
  });

  it("is read by an owner's personal token across organizations", async () => {
    const { customer } = await customerWithState();
    const response = await getState(customer.id, ctx.ownerToken);
    expect(response.statusCode).toBe(200);
    expect(response.json<StateBody>().active_subscriptions).toHaveLength(2);
  });

  describe("bad input", () => {
    let foreignId: string;
    let deletedId: string;
    beforeAll(async () => {
      foreignId = (await createCustomer(ctx.deps, (await createOrganization(ctx.deps)).id, { external_id: "foreign" })).id;
      deletedId = (await createCustomer(ctx.deps, orgId, { external_id: "deleted", deleted_at: new Date() })).id;
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "a non-UUID id",
          request: () => ({ method: "GET", url: "/v1/customers/nope/state", token: readToken }),
          status: 422,
          loc: ["path", "id"],
        },
        {
          name: "an unknown id",
          request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/state`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's customer",
          request: () => ({ method: "GET", url: `/v1/customers/${foreignId}/state`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another organization's external id",
          request: () => ({ method: "GET", url: "/v1/customers/external/foreign/state", token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a deleted customer",
          request: () => ({ method: "GET", url: `/v1/customers/${deletedId}/state`, token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a deleted customer's external id",
          request: () => ({ method: "GET", url: "/v1/customers/external/deleted/state", token: readToken }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "an overlong external id",
          request: () => ({ method: "GET", url: `/v1/customers/external/${"x".repeat(257)}/state`, token: readToken }),
          status: 422,
          loc: ["path", "external_id"],
        },
        { name: "no token", request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/state` }), status: 401 },
        {
          name: "a token without a customers scope",
          request: () => ({ method: "GET", url: `/v1/customers/${UNKNOWN}/state`, token: wrongScopeToken }),
          status: 403,
        },
      ],
    );
  });
});

/** The pending state job of a customer, if any. */
const stateJob = async (customerId: string) =>
  (await queuedJobs(ctx.deps.db, { key: customerStateJobKey(customerId) })).map(({ run_at, payload, revision }) => ({
    run_at,
    payload,
    revision,
  }));

const stateEvents = async (customerId: string) =>
  (
    await ctx.deps.db
      .selectFrom("webhook_events")
      .select("payload")
      .where("type", "=", "customer.state_changed")
      .where(sql<boolean>`payload->'data'->>'id' = ${customerId}`)
      .orderBy("position")
      .execute()
  ).map((row) => row.payload as unknown as { type: string; data: StateBody });

describe("customer.state_changed", () => {
  it("follows a purchase: one debounced job per customer, whose run records the state, delivered and parsed by the SDK", async () => {
    const organizationId = (await createOrganization(ctx.deps)).id;
    const writer = await createOrganizationToken(ctx.deps, organizationId, ["checkouts:write"]);
    const hook = await receiver();
    const endpoint = await createWebhookEndpoint(ctx.deps, organizationId, { url: hook.url, events: ["customer.state_changed"] });
    const plan = await createProduct(ctx.deps, organizationId, {
      product: { name: "Stateful", recurring_interval: "month", recurring_interval_count: 1 },
      benefits: [{ type: "license_keys", description: "Key" }],
    });
    const before = Date.now();
    const { checkout } = await buyThroughCheckout(ctx, writer, plan.product.id);

    // The subscription's start, its grant and the customer's creation folded into one job, due after the debounce.
    const [job, ...others] = await stateJob(checkout.customer_id);
    expect(others).toEqual([]);
    expect(job!.payload).toEqual({ customerId: checkout.customer_id });
    expect(job!.run_at.getTime()).toBeGreaterThanOrEqual(before + STATE_CHANGED_DELAY_MS);
    expect(job!.run_at.getTime()).toBeLessThanOrEqual(Date.now() + STATE_CHANGED_DELAY_MS);
    expect(await stateEvents(checkout.customer_id)).toEqual([]);

    await ctx.services.customerStates.publishStateChanged(checkout.customer_id);
    const [event] = await stateEvents(checkout.customer_id);
    const read = await ctx.request({ method: "GET", url: `/v1/customers/${checkout.customer_id}/state`, token: ctx.ownerToken });
    expect(event!.data).toEqual(read.json());
    expect(event!.data.active_subscriptions.map((s) => s.id)).toEqual([checkout.subscription_id]);
    expect(event!.data.granted_benefits.map((g) => g.benefit_type)).toEqual(["license_keys"]);

    const delivery = engine();
    await fanOutPending(ctx.deps, delivery);
    await delivery.deliverEndpoint(endpoint.id);
    expect(hook.received).toHaveLength(1);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(ctx.clock.now());
    const parsed = await webhooks.validateEvent(hook.received[0]!.body, hook.received[0]!.headers, endpoint.secret);
    expect(parsed.type).toBe("customer.state_changed");
    expect(parsed.data).toMatchObject({ id: checkout.customer_id, active_subscriptions: [{ id: checkout.subscription_id }] });
  });

  it("follows a subscription's grants being revoked, folding repeated changes into the pending job without delaying it", async () => {
    const customer = await createCustomer(ctx.deps, orgId);
    const subscription = await createSubscription(ctx.deps, orgId, { customer });
    const benefitId = await grant(customer, "custom");
    await ctx.deps.db
      .updateTable("benefit_grants")
      .set({ subscription_id: subscription.id })
      .where("customer_id", "=", customer.id)
      .execute();
    // A subscription's grants are restored for the benefits its product carries.
    await ctx.deps.db
      .insertInto("product_benefits")
      .values({ organization_id: orgId, product_id: subscription.product_id, benefit_id: benefitId })
      .execute();
    expect(await stateJob(customer.id)).toEqual([]);

    await ctx.deps.db.transaction().execute((trx) => setSubscriptionBenefits(trx, subscription.id, false, ctx.deps.now()));
    const [pending] = await stateJob(customer.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ctx.deps.db.transaction().execute((trx) => setSubscriptionBenefits(trx, subscription.id, true, ctx.deps.now()));
    const jobs = await stateJob(customer.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ run_at: pending!.run_at, revision: 1 });

    // Nothing changed: no job.
    await ctx.deps.db.transaction().execute((trx) => setSubscriptionBenefits(trx, subscription.id, true, ctx.deps.now()));
    expect(await stateJob(customer.id)).toHaveLength(1);
  });

  it("records nothing for a customer deleted before the job ran", async () => {
    const customer = await createCustomer(ctx.deps, orgId, { deleted_at: new Date() });
    await ctx.services.customerStates.publishStateChanged(customer.id);
    expect(await stateEvents(customer.id)).toEqual([]);
  });
});
