import type Stripe from "stripe";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createCustomerSessionToken, createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import type { StripeStandIn } from "../../helpers/stripe-stand-in/stand-in.ts";
import { openStripeContext } from "../../helpers/stripe-stand-in/stripe-context.ts";
import { openPortalSession, signInToPortal } from "../portal-page/portal-page-helpers.ts";

// Adding a card in the portal with the Stripe processor, 3-D Secure included: the SetupIntent's
// client secret for the page, then the confirm that reads the setup again at Stripe and saves the
// card once (against the local Stripe stand-in, which fails the test on any request Stripe's
// OpenAPI document would refuse).

let ctx: TestContext;
let stripe: StripeStandIn;
let sdk: Stripe;
let close: () => Promise<void>;
let org: { id: string; slug: string };

beforeAll(async () => {
  ({ ctx, stripe, sdk, close } = await openStripeContext());
  org = await createOrganization(ctx.deps);
});
afterEach(() => stripe.assertNoViolations());
afterAll(() => close());

const URL = "/v1/customer-portal/customers/me/payment-methods";

/** A customer of `organizationId` with a live portal session; no Stripe customer until their first card. */
async function freshCustomer(organizationId = org.id) {
  const customer = await createCustomer(ctx.deps, organizationId);
  return { customerId: customer.id, session: await createCustomerSessionToken(ctx.deps, customer.id) };
}

const confirmationToken = async (paymentMethod: string) =>
  (await sdk.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;

const add = async (session: string, paymentMethod: string, setDefault = false) =>
  ctx.request({
    method: "POST",
    url: URL,
    token: session,
    payload: { confirmation_token_id: await confirmationToken(paymentMethod), set_default: setDefault, return_url: "https://shop.test" },
  });

const confirm = (session: string, setupIntentId: string, setDefault = false) =>
  ctx.request({
    method: "POST",
    url: `${URL}/confirm`,
    token: session,
    payload: { setup_intent_id: setupIntentId, set_default: setDefault },
  });

const methodsOf = (customerId: string) =>
  ctx.deps.db.selectFrom("payment_methods").selectAll().where("customer_id", "=", customerId).execute();
const customerRow = (customerId: string) =>
  ctx.deps.db.selectFrom("customers").selectAll().where("id", "=", customerId).executeTakeFirstOrThrow();

/** The SetupIntent a client secret belongs to (Stripe's secrets are `<id>_secret_<random>`). */
const intentOfSecret = (clientSecret: string) => clientSecret.slice(0, clientSecret.indexOf("_secret_"));

/** A card that asked for 3-D Secure when added: the SetupIntent waiting for the customer. */
async function waitingSetup(session: string) {
  const response = await add(session, "pm_card_authenticationRequired");
  expect(response.statusCode, response.body).toBe(201);
  return intentOfSecret(response.json<{ client_secret: string }>().client_secret);
}

describe("POST /v1/customer-portal/customers/me/payment-methods with Stripe", () => {
  it("saves a card that needs no authentication at once, on the customer's new Stripe customer", async () => {
    const { customerId, session } = await freshCustomer();
    const response = await add(session, "pm_card_visa");
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("customer_portal:customers:add_payment_method", 201, response.json());
    expect(response.json()).toMatchObject({ status: "succeeded", payment_method: { type: "card", method_metadata: { last4: "4242" } } });
    const [saved] = await methodsOf(customerId);
    const stripeCustomer = (await customerRow(customerId)).processor_customer_reference;
    expect(stripeCustomer).toMatch(/^cus_/);
    expect(saved).toMatchObject({ id: response.json().payment_method.id, processor_customer_reference: stripeCustomer });
    expect((await sdk.paymentMethods.retrieve(saved!.processor_reference)).customer).toBe(stripeCustomer);
  });

  it("answers requires_action with the SetupIntent's client secret for a 3-D Secure card, saving nothing yet", async () => {
    const { customerId, session } = await freshCustomer();
    const response = await add(session, "pm_card_authenticationRequired");
    expect(response.statusCode, response.body).toBe(201);
    expectReferenceResponse("customer_portal:customers:add_payment_method", 201, response.json());
    const { client_secret: clientSecret } = response.json<{ status: string; client_secret: string }>();
    expect(response.json()).toEqual({ status: "requires_action", client_secret: clientSecret });
    const intent = await sdk.setupIntents.retrieve(intentOfSecret(clientSecret));
    expect([intent.status, intent.client_secret, intent.metadata]).toEqual([
      "requires_action",
      clientSecret,
      { organization_id: org.id, customer_id: customerId },
    ]);
    expect(await methodsOf(customerId)).toEqual([]);
    // The Stripe customer the setup is for is kept: the confirm checks the setup against it.
    expect((await customerRow(customerId)).processor_customer_reference).toBe(intent.customer);
  });
});

describe("the portal page's card form with Stripe", () => {
  it("asks for the bank's check of a 3-D Secure card, saves nothing before it, and saves the card once it is done", async () => {
    const { customerId } = await freshCustomer();
    const cookie = await signInToPortal(ctx, await openPortalSession(ctx, org.id, customerId));
    const post = (path: string, form: Record<string, string>) =>
      ctx.request({
        method: "POST",
        url: `/${org.slug}/portal/${path}`,
        headers: { cookie, origin: "http://localhost:80", host: "localhost:80", "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(form).toString(),
      });
    const added = await post("payment-method", { confirmation_token_id: await confirmationToken("pm_card_authenticationRequired") });
    expect(added.statusCode).toBe(200);
    expect(added.body).toContain("Your bank asks you to confirm this card before it is saved.");
    const setupIntentId = /name="setup_intent_id" value="(seti_[A-Za-z0-9]+)"/.exec(added.body)?.[1];
    expect((await sdk.setupIntents.retrieve(setupIntentId!)).status).toBe("requires_action");
    expect(await methodsOf(customerId)).toEqual([]);

    // Posted before the bank's check is done: still waiting, the check offered again, nothing saved.
    const early = await post("payment-method/confirm", { setup_intent_id: setupIntentId! });
    expect(early.statusCode).toBe(400);
    expect(early.body).toContain("Your bank has not confirmed this card yet.");
    expect(early.body).toContain(`value="${setupIntentId}"`);
    expect(await methodsOf(customerId)).toEqual([]);

    await stripe.authenticate(setupIntentId!, "succeeded");
    const done = await post("payment-method/confirm", { setup_intent_id: setupIntentId! });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toContain("done=payment-method-saved");
    expect((await methodsOf(customerId)).map((method) => method.processor_reference)).toHaveLength(1);

    // Another customer's setup, or none, is refused on the page and saves nothing.
    for (const form of [{ setup_intent_id: "seti_unknown" }, {}] as Record<string, string>[]) {
      const refused = await post("payment-method/confirm", form);
      expect(refused.statusCode).toBe(422);
      expect(await methodsOf(customerId)).toHaveLength(1);
    }
  });
});

describe("POST /v1/customer-portal/customers/me/payment-methods/confirm with Stripe", () => {
  it("saves the card once the customer authenticated: once, however often it is confirmed, and as default when asked", async () => {
    const { customerId, session } = await freshCustomer();
    const setupIntentId = await waitingSetup(session);
    // Not authenticated yet: still waiting, nothing saved.
    const early = await confirm(session, setupIntentId);
    expect(early.statusCode, early.body).toBe(201);
    expect(early.json()).toEqual({ status: "requires_action", client_secret: expect.stringMatching(`^${setupIntentId}_secret_`) });
    expect(await methodsOf(customerId)).toEqual([]);

    await stripe.authenticate(setupIntentId, "succeeded");
    const first = await confirm(session, setupIntentId, true);
    expect(first.statusCode, first.body).toBe(201);
    expectReferenceResponse("customer_portal:customers:confirm_payment_method", 201, first.json());
    expect(first.json()).toMatchObject({ status: "succeeded", payment_method: { type: "card", method_metadata: { last4: "3184" } } });
    const second = await confirm(session, setupIntentId, true);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json()).toEqual(first.json());

    const methods = await methodsOf(customerId);
    expect(methods.map((method) => method.id)).toEqual([first.json().payment_method.id]);
    const intent = await sdk.setupIntents.retrieve(setupIntentId);
    expect(methods[0]).toMatchObject({ processor_reference: intent.payment_method, processor_customer_reference: intent.customer });
    expect((await customerRow(customerId)).default_payment_method_id).toBe(methods[0]!.id);
  });

  it("saves one card when two confirms of the same setup arrive at once", async () => {
    const { customerId, session } = await freshCustomer();
    const setupIntentId = await waitingSetup(session);
    await stripe.authenticate(setupIntentId, "succeeded");
    const responses = await Promise.all([confirm(session, setupIntentId), confirm(session, setupIntentId)]);
    expect(responses.map((response) => response.statusCode)).toEqual([201, 201]);
    expect(responses[0].json().payment_method.id).toBe(responses[1].json().payment_method.id);
    expect(await methodsOf(customerId)).toHaveLength(1);
  });

  it("answers a failed authentication with the hosted service's 400 PaymentMethodSetupFailed, saving nothing", async () => {
    const { customerId, session } = await freshCustomer();
    const setupIntentId = await waitingSetup(session);
    await stripe.authenticate(setupIntentId, "failed");
    const response = await confirm(session, setupIntentId);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      error: "PaymentMethodSetupFailed",
      detail:
        "Could not add this payment method: We are unable to authenticate your payment method. Please choose a different payment method and try again. Please try again with a different card.",
    });
    expect(await methodsOf(customerId)).toEqual([]);
  });

  it("does not save again a card the customer deleted since: the setup is spent (422)", async () => {
    const { customerId, session } = await freshCustomer();
    const setupIntentId = await waitingSetup(session);
    await stripe.authenticate(setupIntentId, "succeeded");
    const saved = (await confirm(session, setupIntentId)).json().payment_method.id;
    const deleted = await ctx.request({ method: "DELETE", url: `${URL}/${saved}`, token: session });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const again = await confirm(session, setupIntentId);
    expect(again.statusCode, again.body).toBe(422);
    expect((await methodsOf(customerId)).map((method) => method.deleted_at !== null)).toEqual([true]);
  });

  // The table's customer has a Stripe customer (an earlier card); the others' setups are
  // authenticated, so only the ownership check keeps their cards from being saved here.
  let table = { customerId: "", session: "" };
  let neighbourSetup = "";
  let foreignSetup = "";
  let others: string[] = [];
  let unready = "";
  let organizationToken = "";
  beforeAll(async () => {
    const mine = await freshCustomer();
    expect((await add(mine.session, "pm_card_visa")).statusCode).toBe(201);
    table = mine;
    const neighbour = await freshCustomer();
    neighbourSetup = await waitingSetup(neighbour.session);
    const foreign = await freshCustomer((await createOrganization(ctx.deps)).id);
    foreignSetup = await waitingSetup(foreign.session);
    await stripe.authenticate(neighbourSetup, "succeeded");
    await stripe.authenticate(foreignSetup, "succeeded");
    others = [neighbour.customerId, foreign.customerId];
    organizationToken = await createOrganizationToken(ctx.deps, org.id, ["customers:write"]);
  });
  beforeEach(async () => {
    if (table.customerId) table.session = await createCustomerSessionToken(ctx.deps, table.customerId);
    unready = (await freshCustomer()).session;
  });
  const post =
    (payload: Record<string, unknown>, token: () => string | null = () => table.session) =>
    () => ({
      method: "POST" as const,
      url: `${URL}/confirm`,
      token: token(),
      payload,
    });
  badInputTable(
    () => ctx.request,
    [
      { name: "a missing setup intent", request: post({ set_default: false }), status: 422, loc: ["body", "setup_intent_id"] },
      { name: "a missing set_default", request: post({ setup_intent_id: "seti_1" }), status: 422, loc: ["body", "set_default"] },
      {
        name: "a numeric setup intent",
        request: post({ setup_intent_id: 7, set_default: false }),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "an overlong setup intent",
        request: post({ setup_intent_id: `seti_${"x".repeat(300)}`, set_default: false }),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "a setup intent unknown to Stripe",
        request: post({ setup_intent_id: "seti_123unknown", set_default: false }),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "an id that is no setup intent",
        request: post({ setup_intent_id: "../customers", set_default: false }),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "another customer's setup intent",
        request: () => post({ setup_intent_id: neighbourSetup, set_default: true })(),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "another organization's setup intent",
        request: () => post({ setup_intent_id: foreignSetup, set_default: true })(),
        status: 422,
        loc: ["body", "setup_intent_id"],
      },
      {
        name: "a customer without a Stripe customer",
        request: () => post({ setup_intent_id: neighbourSetup, set_default: false }, () => unready)(),
        status: 403,
        error: "CustomerNotReady",
      },
      { name: "no token", request: post({ setup_intent_id: "seti_1", set_default: false }, () => null), status: 401 },
      {
        name: "a wrong token",
        request: post({ setup_intent_id: "seti_1", set_default: false }, () => "polar_cst_wrong"),
        status: 401,
      },
      {
        name: "an organization token",
        request: post({ setup_intent_id: "seti_1", set_default: false }, () => organizationToken),
        status: 401,
      },
    ],
    async () => {
      // Only the table customer's first card: nothing refused was saved, for anyone.
      expect(await methodsOf(table.customerId)).toHaveLength(1);
      for (const customerId of others) expect(await methodsOf(customerId)).toEqual([]);
    },
  );
});
