import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInputTable, tokenRefusals, type BadInputCase, type TokenSource } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganization, createProduct, openOrganizationContext } from "../../helpers/factories.ts";
import { expectReferenceResponse } from "../../helpers/reference.ts";
import { LICENSE } from "../benefits/grant-fixtures.ts";
import { buyThroughCheckout } from "../subscriptions/subscription-helpers.ts";

// PATCH /v1/license-keys/{id}: the fields sent, set as given, and the benefit grant that issued the
// key following a revocation or a new grant (not a disabling).

let ctx: TestContext;
let orgId: string;
let token: string;
let readToken: string;
let checkoutToken: string;
let foreignKeyId: string;
const UNKNOWN = "3f2b1c4d-1111-4222-8333-123456789abc";

beforeAll(async () => {
  ({
    ctx,
    org: { id: orgId },
    tokens: [token, readToken, checkoutToken],
  } = await openOrganizationContext(["license_keys:write"], ["license_keys:read"], ["checkouts:write"]));
  const other = await createOrganization(ctx.deps);
  foreignKeyId = (await createLicenseKey(ctx.deps, other.id, (await createCustomer(ctx.deps, other.id)).id)).id;
});
afterAll(() => ctx.close());

const patch = (id: string, payload: Record<string, unknown>) =>
  ctx.request({ method: "PATCH", url: `/v1/license-keys/${id}`, token, payload });

async function patched(id: string, payload: Record<string, unknown>) {
  const response = await patch(id, payload);
  expect(response.statusCode, response.body).toBe(200);
  expectReferenceResponse("license_keys:update", 200, response.json());
  return response.json();
}

/** What a refused request must leave as it was: keys, grants and webhook events. */
async function snapshot() {
  const [keys, grants, events] = await Promise.all([
    ctx.deps.db.selectFrom("license_keys").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("benefit_grants").selectAll().orderBy("id").execute(),
    ctx.deps.db.selectFrom("webhook_events").select("id").execute(),
  ]);
  return JSON.stringify({ keys, grants, events: events.length });
}

describe("PATCH /v1/license-keys/{id}", () => {
  it("sets the fields sent as given, with no check against the key's usage; null removes a limit", async () => {
    const key = await createLicenseKey(ctx.deps, orgId, (await createCustomer(ctx.deps, orgId)).id, { usage: 7, limit_usage: 10 });
    ctx.clock.advance(60_000);
    const body = await patched(key.id, { usage: 2, limit_activations: 1, limit_usage: 1, expires_at: "2027-01-01T00:00:00Z" });
    expect(body).toMatchObject({
      id: key.id,
      status: "granted",
      usage: 2,
      limit_activations: 1,
      limit_usage: 1,
      expires_at: "2027-01-01T00:00:00.000Z",
      modified_at: ctx.clock.now().toISOString(),
    });
    expect(await patched(key.id, { limit_usage: null, expires_at: null })).toMatchObject({
      usage: 2,
      limit_activations: 1,
      limit_usage: null,
      expires_at: null,
    });
    const read = await ctx.request({ method: "GET", url: `/v1/license-keys/${key.id}`, token: readToken });
    expect(read.json()).toMatchObject({ usage: 2, limit_activations: 1, limit_usage: null, expires_at: null });
  });

  it("revokes the grant with a revoked key and grants it again with a granted one; disabling leaves it", async () => {
    const product = await createProduct(ctx.deps, orgId, { benefits: [LICENSE] });
    const { checkout } = await buyThroughCheckout(ctx, checkoutToken, product.product.id, {
      buyer: { customer_email: "keyed@example.com" },
    });
    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .selectAll()
      .where("customer_id", "=", checkout.customer_id)
      .executeTakeFirstOrThrow();
    const grant = async () =>
      ctx.deps.db
        .selectFrom("benefit_grants")
        .select(["granted_at", "revoked_at"])
        .where("customer_id", "=", checkout.customer_id)
        .executeTakeFirstOrThrow();
    const grantEvents = async () =>
      (
        await ctx.deps.db
          .selectFrom("webhook_events")
          .select(["type", "payload"])
          .where("organization_id", "=", orgId)
          .where("type", "like", "benefit_grant.%")
          .orderBy("position")
          .execute()
      )
        .filter((row) => (row.payload.data as unknown as { customer_id: string }).customer_id === checkout.customer_id)
        .map((row) => row.type);

    expect((await patched(key.id, { status: "disabled" })).status).toBe("disabled");
    expect((await grant()).granted_at).not.toBeNull();
    expect(await grantEvents()).toEqual(["benefit_grant.created"]);

    ctx.clock.advance(60_000);
    expect((await patched(key.id, { status: "revoked" })).status).toBe("revoked");
    expect(await grant()).toEqual({ granted_at: null, revoked_at: ctx.clock.now() });
    expect(await grantEvents()).toEqual(["benefit_grant.created", "benefit_grant.revoked"]);

    ctx.clock.advance(60_000);
    expect((await patched(key.id, { status: "granted" })).status).toBe("granted");
    expect(await grant()).toEqual({ granted_at: ctx.clock.now(), revoked_at: null });
    expect(await grantEvents()).toEqual(["benefit_grant.created", "benefit_grant.revoked", "benefit_grant.created"]);

    // The same status again changes no grant.
    await patched(key.id, { status: "granted" });
    expect(await grantEvents()).toHaveLength(3);
  });

  describe("bad input", () => {
    let keyId: string;
    let before: string;
    beforeAll(async () => {
      keyId = (await createLicenseKey(ctx.deps, orgId, (await createCustomer(ctx.deps, orgId)).id)).id;
      before = await snapshot();
    });
    const at =
      (id: () => string, payload: unknown, as: TokenSource = () => token): BadInputCase["request"] =>
      () => ({ method: "PATCH", url: `/v1/license-keys/${id()}`, token: as(), payload: payload as object });
    const own = () => keyId;

    badInputTable(
      () => ctx.request,
      [
        { name: "an unknown status", request: at(own, { status: "paused" }), status: 422, loc: ["body", "status"] },
        { name: "usage as text", request: at(own, { usage: "3" }), status: 422, loc: ["body", "usage"] },
        { name: "usage beyond int32", request: at(own, { usage: 2 ** 31 }), status: 422, loc: ["body", "usage"] },
        { name: "a zero activation limit", request: at(own, { limit_activations: 0 }), status: 422, loc: ["body", "limit_activations"] },
        { name: "a negative usage limit", request: at(own, { limit_usage: -1 }), status: 422, loc: ["body", "limit_usage"] },
        { name: "an expiry that is no date", request: at(own, { expires_at: "soon" }), status: 422, loc: ["body", "expires_at"] },
        { name: "a non-UUID id", request: at(() => "k", { usage: 1 }), status: 422, loc: ["path", "id"] },
        { name: "an unknown id", request: at(() => UNKNOWN, { usage: 1 }), status: 404, error: "ResourceNotFound" },
        { name: "another organization's key", request: at(() => foreignKeyId, { usage: 1 }), status: 404, error: "ResourceNotFound" },
        ...tokenRefusals((as) => at(own, { usage: 1 }, as), {
          "a read-only token": () => readToken,
          "a token of another feature": () => checkoutToken,
        }),
      ],
      async () => expect(await snapshot()).toBe(before),
    );
  });
});
