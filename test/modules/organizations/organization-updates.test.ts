import { createPolar } from "@polar-sh/sdk/2026-04";
import { Polar as LegacyPolar } from "polar-sdk-legacy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrganizationCustomerEmailSettingsKeys } from "../../../src/modules/organizations/organizations.schemas.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import { createTestContext, listen, type TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";

let ctx: TestContext;
let baseUrl: string;
beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

const UNKNOWN_ID = "3f2b1c4d-1111-4222-8333-123456789abc";
const allSwitches = (on: boolean) => Object.fromEntries(OrganizationCustomerEmailSettingsKeys.map((key) => [key, on]));
const storedRow = (id: string) => ctx.deps.db.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("GET /v1/organizations/", () => {
  it("lists what the caller may see: the owner every organization, an organization token its own", async () => {
    const [zulu, alpha] = [
      await createOrganization(ctx.deps, `Zulu ${Date.now()}`),
      await createOrganization(ctx.deps, `Alpha ${Date.now()}`),
    ];
    const token = await createOrganizationToken(ctx.deps, zulu.id, ["organizations:read"]);

    const own = await ctx.request({ method: "GET", url: "/v1/organizations/", token });
    expect(own.statusCode, own.body).toBe(200);
    expectReferenceResponse("organizations:list", 200, own.json());
    expect(own.json().items.map((o: { id: string }) => o.id)).toEqual([zulu.id]);
    expect(own.json().pagination).toEqual({ total_count: 1, max_page: 1 });
    // Another organization's slug is not found through a token of its own.
    const foreign = await ctx.request({ method: "GET", url: `/v1/organizations/?slug=${alpha.slug}`, token });
    expect(foreign.json()).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });

    const bySlug = await ctx.request({ method: "GET", url: `/v1/organizations/?slug=${alpha.slug}`, token: ctx.ownerToken });
    expect(bySlug.json().items).toEqual([
      await (await ctx.request({ method: "GET", url: `/v1/organizations/${alpha.id}`, token: ctx.ownerToken })).json(),
    ]);

    const all = await ctx.request({ method: "GET", url: "/v1/organizations/?limit=100&sorting=-name", token: ctx.ownerToken });
    const names = all.json().items.map((o: { name: string }) => o.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)));
    expect(all.json().items.map((o: { id: string }) => o.id)).toEqual(expect.arrayContaining([zulu.id, alpha.id]));
    // The default order is by creation, oldest first.
    const byCreation = (await ctx.request({ method: "GET", url: "/v1/organizations/?limit=100", token: ctx.ownerToken })).json().items;
    const created = byCreation.map((o: { created_at: string }) => o.created_at);
    expect(created).toEqual([...created].sort());
  });

  describe("bad input", () => {
    let token: string;
    let noScope: string;
    beforeAll(async () => {
      const org = await createOrganization(ctx.deps);
      token = await createOrganizationToken(ctx.deps, org.id, ["organizations:read"]);
      noScope = await createOrganizationToken(ctx.deps, org.id, ["checkouts:read"]);
    });
    const list = (query: string, as?: () => string | null) => () => ({
      method: "GET" as const,
      url: `/v1/organizations/${query}`,
      token: as ? as() : token,
    });
    badInputTable(
      () => ctx.request,
      [
        { name: "an unknown sort key", request: list("?sorting=revenue"), status: 422, loc: ["query", "sorting", 0] },
        { name: "a page of zero", request: list("?page=0"), status: 422, loc: ["query", "page"] },
        { name: "a limit that is not a number", request: list("?limit=ten"), status: 422, loc: ["query", "limit"] },
        { name: "an overlong slug", request: list(`?slug=${"s".repeat(300)}`), status: 422, loc: ["query", "slug"] },
        { name: "a missing scope", request: list("", () => noScope), status: 403, error: "insufficient_scope" },
        { name: "no token", request: list("", () => null), status: 401, error: "Unauthorized" },
        { name: "a bad token", request: list("", () => "polar_oat_unknown"), status: 401, error: "invalid_token" },
      ],
    );
  });
});

describe("PATCH /v1/organizations/{id}", () => {
  it("applies only the keys sent; settings merge or replace as documented; the answer is the reference's Organization", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["organizations:write"]);
    const patch = (payload: object) => ctx.request({ method: "PATCH", url: `/v1/organizations/${org.id}`, token, payload });

    const first = await patch({
      name: "Renamed Tools",
      email: "help@renamed.test",
      website: "https://renamed.test",
      socials: [{ platform: "github", url: "https://github.com/renamed" }],
      country: "FR",
      details: { product_description: "Desktop apps" },
      feature_settings: { checkout_localization_enabled: true },
      subscription_settings: {
        allow_multiple_subscriptions: true,
        proration_behavior: "invoice",
        benefit_revocation_grace_period: 3,
        prevent_trial_abuse: true,
        allow_customer_updates: false,
      },
      customer_portal_settings: { usage: { show: false }, subscription: { update_seats: false, update_plan: true } },
      embed_hosts: ["shop.renamed.test", "*.renamed.test", "localhost:3000", "shop.renamed.test"],
      default_presentment_currency: "eur",
      default_tax_behavior: "inclusive",
      dispute_settings: { auto_accept_below_amount: null },
      sso_enforced: false,
    });
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expectReferenceResponse("organizations:update", 200, body);
    expect(body).toMatchObject({
      id: org.id,
      slug: org.slug,
      name: "Renamed Tools",
      email: "help@renamed.test",
      website: "https://renamed.test",
      socials: [{ platform: "github", url: "https://github.com/renamed" }],
      country: "FR",
      proration_behavior: "invoice",
      allow_customer_updates: false,
      feature_settings: { checkout_localization_enabled: true, seat_based_pricing_enabled: true, member_model_enabled: false },
      customer_portal_settings: { usage: { show: false }, subscription: { update_seats: false, update_plan: true } },
      embed_hosts: ["shop.renamed.test", "*.renamed.test", "localhost:3000"],
      default_presentment_currency: "eur",
      default_tax_behavior: "inclusive",
      dispute_settings: { auto_accept_below_amount: null },
      sso_enforced: false,
      email_sender: null,
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(body.customer_email_settings).toEqual(allSwitches(true));

    // Keys not sent keep their value; null clears what is nullable and leaves the rest.
    const second = await patch({ name: null, website: null, country: null, feature_settings: { member_model_enabled: true } });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toMatchObject({
      name: "Renamed Tools",
      website: null,
      country: null,
      email: "help@renamed.test",
      feature_settings: { checkout_localization_enabled: true, member_model_enabled: true },
      embed_hosts: ["shop.renamed.test", "*.renamed.test", "localhost:3000"],
    });
    expect((await ctx.request({ method: "GET", url: `/v1/organizations/${org.id}`, token })).json()).toEqual(second.json());
  });

  it("merges customer email switches per key; switches never stored read as on, the card reminder as the renewal receipt", async () => {
    const org = await createOrganization(ctx.deps);
    const patch = (payload: object) => ctx.request({ method: "PATCH", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken, payload });

    const off = await patch({ customer_email_settings: { order_confirmation: false, subscription_cycled: false } });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().customer_email_settings).toEqual({
      ...allSwitches(true),
      order_confirmation: false,
      subscription_cycled: false,
      // Never stored: it follows `subscription_cycled`, as the hosted service reads older settings.
      payment_method_expiration_reminder: false,
    });
    const more = await patch({ customer_email_settings: { subscription_revoked: false, payment_method_expiration_reminder: true } });
    expect(more.json().customer_email_settings).toEqual({
      ...allSwitches(true),
      order_confirmation: false,
      subscription_cycled: false,
      subscription_revoked: false,
      payment_method_expiration_reminder: true,
    });
    // The reference's full object is one case of the merge: it sets every switch.
    const full = await patch({ customer_email_settings: allSwitches(true) });
    expect(full.json().customer_email_settings).toEqual(allSwitches(true));
    expect((await storedRow(org.id)).customer_email_settings).toEqual(allSwitches(true));
    // A key the reference lets through but names no switch is accepted and not kept.
    const unknown = await patch({ customer_email_settings: { order_confirmations: false } });
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect((await storedRow(org.id)).customer_email_settings).toEqual(allSwitches(true));
  });

  it("loses no switch when PATCHes race: each merges onto what the one before it wrote", async () => {
    const org = await createOrganization(ctx.deps);
    const switches = ["order_confirmation", "subscription_revoked", "subscription_paused", "subscription_updated"];
    const answers = await Promise.all(
      switches.map((key) =>
        ctx.request({
          method: "PATCH",
          url: `/v1/organizations/${org.id}`,
          token: ctx.ownerToken,
          payload: { customer_email_settings: { [key]: false } },
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    const read = await ctx.request({ method: "GET", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken });
    expect(read.json().customer_email_settings).toEqual({
      ...allSwitches(true),
      ...Object.fromEntries(switches.map((key) => [key, false])),
    });
  });

  it("merges the seller's notice switches per key (an extension); never stored, they read as the hosted service's defaults", async () => {
    const org = await createOrganization(ctx.deps);
    const patch = (payload: object) => ctx.request({ method: "PATCH", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken, payload });
    const defaults = {
      new_order: true,
      new_subscription: true,
      chargeback_prevention: true,
      subscription_renewal: false,
      subscription_cancellation: true,
      dispute_opened: true,
      webhook_endpoint_disabled: true,
    };
    const read = await ctx.request({ method: "GET", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken });
    expect(read.json().notification_settings).toEqual(defaults);

    const off = await patch({ notification_settings: { new_order: false } });
    expect(off.statusCode, off.body).toBe(200);
    expectReferenceResponse("organizations:update", 200, off.json());
    expect(off.json().notification_settings).toEqual({ ...defaults, new_order: false });
    const more = await patch({
      notification_settings: { chargeback_prevention: false, subscription_renewal: true, dispute_opened: false },
    });
    expect(more.json().notification_settings).toEqual({
      ...defaults,
      new_order: false,
      chargeback_prevention: false,
      subscription_renewal: true,
      dispute_opened: false,
    });
    // Null or absent: unchanged.
    expect((await patch({ notification_settings: null })).json().notification_settings).toEqual(more.json().notification_settings);
    expect((await patch({ name: "Quiet Seller" })).json().notification_settings).toEqual(more.json().notification_settings);
    expect((await storedRow(org.id)).notification_settings).toEqual({
      new_order: false,
      chargeback_prevention: false,
      subscription_renewal: true,
      dispute_opened: false,
    });
  });

  it("sets and clears the organization's email sender (an extension)", async () => {
    const org = await createOrganization(ctx.deps);
    const patch = (payload: object) => ctx.request({ method: "PATCH", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken, payload });
    const read = async () =>
      (await ctx.request({ method: "GET", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken })).json().email_sender;
    expect(await read()).toBeNull();

    const sender = { name: "Acme Billing", address: "billing@acme.test", reply_to: "support@acme.test" };
    const set = await patch({ email_sender: sender });
    expect(set.statusCode, set.body).toBe(200);
    expectReferenceResponse("organizations:update", 200, set.json());
    expect(set.json().email_sender).toEqual(sender);
    expect(await read()).toEqual(sender);

    const nameless = await patch({ email_sender: { name: null, address: "orders@acme.test", reply_to: null } });
    expect(nameless.json().email_sender).toEqual({ name: null, address: "orders@acme.test", reply_to: null });
    // A PATCH without it keeps it.
    expect((await patch({ name: "Acme Again" })).json().email_sender).toEqual({ name: null, address: "orders@acme.test", reply_to: null });

    const cleared = await patch({ email_sender: null });
    expect(cleared.json().email_sender).toBeNull();
    expect(await read()).toBeNull();
  });

  it("schedules the logo fetch of a new avatar URL, and none when it is unchanged or cleared", async () => {
    const org = await createOrganization(ctx.deps);
    const jobs = () =>
      ctx.deps.db
        .selectFrom("graphile_worker.jobs" as never)
        .select(["key" as never])
        .where("key" as never, "=", `organization-logo:${org.id}` as never)
        .execute();
    const patch = (payload: object) => ctx.request({ method: "PATCH", url: `/v1/organizations/${org.id}`, token: ctx.ownerToken, payload });
    expect((await patch({ avatar_url: "https://cdn.acme.test/logo.png" })).json().avatar_url).toBe("https://cdn.acme.test/logo.png");
    expect(await jobs()).toHaveLength(1);
    await ctx.deps.db
      .deleteFrom("graphile_worker._private_jobs" as never)
      .where("key" as never, "=", `organization-logo:${org.id}` as never)
      .execute();
    await patch({ avatar_url: "https://cdn.acme.test/logo.png" });
    await patch({ avatar_url: null });
    expect(await jobs()).toHaveLength(0);
  });

  it("is read by both official clients: the 2026-04 SDK and the 0.x line the auth plugins use", async () => {
    const org = await createOrganization(ctx.deps);
    const token = await createOrganizationToken(ctx.deps, org.id, ["organizations:read", "organizations:write"]);
    await ctx.request({
      method: "PATCH",
      url: `/v1/organizations/${org.id}`,
      token,
      payload: { email_sender: { name: "Acme", address: "billing@acme.test", reply_to: null } },
    });

    const polar = createPolar({ accessToken: token, baseUrl });
    const updated = await polar.organizations.update(org.id, { name: "Through The SDK" });
    expect(updated.name).toBe("Through The SDK");
    const listed = await polar.organizations.list({ slug: org.slug });
    expect(listed.items.map((o) => o.id)).toEqual([org.id]);

    // The 0.x client decodes with zod objects, which drop keys they do not know (`email_sender`).
    const legacy = new LegacyPolar({ accessToken: token, serverURL: baseUrl });
    const legacyUpdated = await legacy.organizations.update({
      id: org.id,
      organizationUpdate: { customerEmailSettings: { ...allSwitchesCamel(false) } },
    });
    expect(legacyUpdated.customerEmailSettings.orderConfirmation).toBe(false);
    expect(legacyUpdated).not.toHaveProperty("email_sender");
    const page = await legacy.organizations.listOrganizations({ slug: org.slug });
    expect(page.result.items.map((o) => o.name)).toEqual(["Through The SDK"]);
  });

  describe("rules", () => {
    let orgId: string;
    beforeAll(async () => {
      orgId = (await createOrganization(ctx.deps)).id;
    });
    const patch = (payload: object) => () => ({
      method: "PATCH" as const,
      url: `/v1/organizations/${orgId}`,
      token: ctx.ownerToken,
      payload,
    });
    badInputTable(
      () => ctx.request,
      [
        {
          name: "seat-based pricing turned off",
          request: patch({ feature_settings: { seat_based_pricing_enabled: false } }),
          status: 422,
          loc: ["body", "feature_settings", "seat_based_pricing_enabled"],
        },
        {
          name: "a dispute auto-accept threshold",
          request: patch({ dispute_settings: { auto_accept_below_amount: 500 } }),
          status: 403,
          error: "DisputeAutoAcceptNotEnabled",
        },
        { name: "SSO enforced", request: patch({ sso_enforced: true }), status: 409, error: "SSOEnforcementRequiresConnection" },
      ],
      async () => expect((await storedRow(orgId)).modified_at).toBeNull(),
    );
  });

  describe("bad input", () => {
    let mine: string;
    let theirs: string;
    let token: string;
    let readOnly: string;
    let before: unknown;
    beforeAll(async () => {
      mine = (await createOrganization(ctx.deps)).id;
      theirs = (await createOrganization(ctx.deps)).id;
      token = await createOrganizationToken(ctx.deps, mine, ["organizations:write"]);
      readOnly = await createOrganizationToken(ctx.deps, mine, ["organizations:read"]);
      before = [await storedRow(mine), await storedRow(theirs)];
    });
    const patch =
      (payload: unknown, options: { id?: () => string; as?: () => string | null } = {}) =>
      () => ({
        method: "PATCH" as const,
        url: `/v1/organizations/${options.id ? options.id() : mine}`,
        token: options.as ? options.as() : token,
        payload: payload as object,
      });
    const sender = { name: "Acme", address: "billing@acme.test", reply_to: null };
    badInputTable(
      () => ctx.request,
      [
        { name: "a name of the wrong type", request: patch({ name: 42 }), status: 422, loc: ["body", "name"] },
        { name: "a too short name", request: patch({ name: "ab" }), status: 422, loc: ["body", "name"] },
        { name: "an overlong name", request: patch({ name: "n".repeat(257) }), status: 422, loc: ["body", "name"] },
        { name: "an invalid support email", request: patch({ email: "nope" }), status: 422, loc: ["body", "email"] },
        { name: "a website that is not a URL", request: patch({ website: "renamed" }), status: 422, loc: ["body", "website"] },
        { name: "an unknown country", request: patch({ country: "XX" }), status: 422, loc: ["body", "country"] },
        {
          name: "an unknown currency",
          request: patch({ default_presentment_currency: "xyz" }),
          status: 422,
          loc: ["body", "default_presentment_currency"],
        },
        {
          name: "an email switch that is not a boolean",
          request: patch({ customer_email_settings: { order_confirmation: "no" } }),
          status: 422,
          loc: ["body", "customer_email_settings", "order_confirmation"],
        },
        {
          name: "a notice switch that is not a boolean",
          request: patch({ notification_settings: { new_order: "off" } }),
          status: 422,
          loc: ["body", "notification_settings", "new_order"],
        },
        {
          name: "an extension's notice switch that is not a boolean",
          request: patch({ notification_settings: { webhook_endpoint_disabled: 0 } }),
          status: 422,
          loc: ["body", "notification_settings", "webhook_endpoint_disabled"],
        },
        {
          name: "a notice switch set to null",
          request: patch({ notification_settings: { dispute_opened: null } }),
          status: 422,
          loc: ["body", "notification_settings", "dispute_opened"],
        },
        {
          name: "an unknown (misspelt) notice switch",
          request: patch({ notification_settings: { new_orders: false } }),
          status: 422,
          loc: ["body", "notification_settings", "new_orders"],
        },
        {
          name: "a valid notice switch beside an unknown one (neither applies)",
          request: patch({ notification_settings: { new_order: false, dispute: false } }),
          status: 422,
          loc: ["body", "notification_settings", "dispute"],
        },
        {
          name: "notice switches that are not an object",
          request: patch({ notification_settings: [false] }),
          status: 422,
          loc: ["body", "notification_settings"],
        },
        {
          name: "notice switches given as a string",
          request: patch({ notification_settings: "off" }),
          status: 422,
          loc: ["body", "notification_settings"],
        },
        {
          name: "incomplete subscription settings",
          request: patch({ subscription_settings: { allow_multiple_subscriptions: true } }),
          status: 422,
          loc: ["body", "subscription_settings", "proration_behavior"],
        },
        {
          name: "a dispute threshold out of range",
          request: patch({ dispute_settings: { auto_accept_below_amount: 10_001 } }),
          status: 422,
          loc: ["body", "dispute_settings", "auto_accept_below_amount"],
        },
        {
          name: "an embed host with a path",
          request: patch({ embed_hosts: ["shop.test/checkout"] }),
          status: 422,
          loc: ["body", "embed_hosts", 0],
        },
        {
          name: "a sender without an address",
          request: patch({ email_sender: { name: "Acme", reply_to: null } }),
          status: 422,
          loc: ["body", "email_sender", "address"],
        },
        {
          name: "a sender address that is not an email",
          request: patch({ email_sender: { ...sender, address: "billing" } }),
          status: 422,
          loc: ["body", "email_sender", "address"],
        },
        {
          name: "a sender name with a line break (header injection)",
          request: patch({ email_sender: { ...sender, name: "Acme\r\nBcc: victim@example.com" } }),
          status: 422,
          loc: ["body", "email_sender", "name"],
        },
        {
          name: "an overlong sender name",
          request: patch({ email_sender: { ...sender, name: "n".repeat(101) } }),
          status: 422,
          loc: ["body", "email_sender", "name"],
        },
        {
          name: "a Reply-To that is not an email",
          request: patch({ email_sender: { ...sender, reply_to: "support" } }),
          status: 422,
          loc: ["body", "email_sender", "reply_to"],
        },
        { name: "a body that is not an object", request: patch([1]), status: 422 },
        { name: "a non-UUID id", request: patch({ name: "Fine Name" }, { id: () => "123" }), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: patch({ name: "Fine Name" }, { id: () => UNKNOWN_ID }), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's id",
          request: patch({ name: "Taken Over" }, { id: () => theirs }),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a token without the write scope",
          request: patch({ name: "Fine Name" }, { as: () => readOnly }),
          status: 403,
          error: "insufficient_scope",
        },
        { name: "no token", request: patch({ name: "Fine Name" }, { as: () => null }), status: 401, error: "Unauthorized" },
        {
          name: "a bad token",
          request: patch({ name: "Fine Name" }, { as: () => "polar_oat_unknown" }),
          status: 401,
          error: "invalid_token",
        },
      ],
      async () => expect([await storedRow(mine), await storedRow(theirs)]).toEqual(before),
    );
  });
});

/** The switches as the 0.x client names them. */
function allSwitchesCamel(on: boolean) {
  return {
    orderConfirmation: on,
    paymentMethodExpirationReminder: on,
    subscriptionCancellation: on,
    subscriptionConfirmation: on,
    subscriptionCycled: on,
    subscriptionCycledAfterTrial: on,
    subscriptionPastDue: on,
    subscriptionPaused: on,
    subscriptionResumed: on,
    subscriptionRenewalReminder: on,
    subscriptionRevoked: on,
    subscriptionTrialConversionReminder: on,
    subscriptionUncanceled: on,
    subscriptionUpdated: on,
  };
}
