import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cullSilentLicenseActivations } from "../../../src/flows/cull-silent-activations.ts";
import { crontab } from "../../../src/tasks.ts";
import { badInputTable, jsonRequest } from "../../helpers/bad-inputs.ts";
import { type TestContext } from "../../helpers/context.ts";
import { createCustomer, createLicenseKey, createOrganizationToken } from "../../helpers/factories.ts";
import { openLicenseKeyWorld } from "./license-key-world.ts";

let ctx: TestContext;
let orgId: string;
let otherOrgId: string;
let customerId: string;

beforeAll(async () => {
  ({ ctx, orgId, otherOrgId, customerId } = await openLicenseKeyWorld());
});
afterAll(() => ctx.close());

const HEARTBEAT = "/v1/customer-portal/license-keys/heartbeat";
const MINUTE = 60_000;
/** A key whose activations beat every 10 minutes, with 5 more of grace, and the grant that issued it. */
async function heartbeatKey(overrides: Parameters<typeof createLicenseKey>[3] = {}) {
  const key = await createLicenseKey(ctx.deps, orgId, customerId, {
    heartbeat_interval_seconds: 600,
    heartbeat_grace_seconds: 300,
    ...overrides,
  });
  const grant = await ctx.deps.db
    .insertInto("benefit_grants")
    .values({
      created_at: ctx.clock.now(),
      modified_at: null,
      organization_id: orgId,
      customer_id: customerId,
      benefit_id: key.benefit_id,
      order_id: null,
      subscription_id: null,
      granted_at: ctx.clock.now(),
      revoked_at: null,
      properties: JSON.stringify({ license_key_id: key.id, display_key: `****-${key.key.slice(-6)}` }),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { ...key, grantId: grant.id };
}
const activate = (key: { key: string }) =>
  ctx.request({
    method: "POST",
    url: "/v1/customer-portal/license-keys/activate",
    payload: { key: key.key, organization_id: orgId, label: "pc" },
  });
async function activationOf(key: { key: string }): Promise<string> {
  const response = await activate(key);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ id: string }>().id;
}
const beat = (key: { key: string }, activationId: string) =>
  ctx.request({ method: "POST", url: HEARTBEAT, payload: { key: key.key, organization_id: orgId, activation_id: activationId } });
const live = async (keyId: string) =>
  (
    await ctx.deps.db
      .selectFrom("license_key_activations")
      .select("id")
      .where("license_key_id", "=", keyId)
      .where("deleted_at", "is", null)
      .execute()
  ).map((row) => row.id);
const grantUpdates = async (grantId: string) =>
  (await ctx.deps.db.selectFrom("webhook_events").selectAll().where("type", "=", "benefit_grant.updated").execute()).filter(
    (event) => (event.payload.data as { id: string }).id === grantId,
  );
/** Runs the cull at `at`, then puts the clock back. */
async function cullAt(at: Date): Promise<number> {
  const start = ctx.clock.now();
  ctx.clock.set(at);
  try {
    return await cullSilentLicenseActivations(ctx.deps);
  } finally {
    ctx.clock.set(start);
  }
}

describe("heartbeats and culling", () => {
  it("is a crontab task of the worker", () => {
    expect(crontab.split("\n")).toContain("* * * * * license_keys:cull_activations ?max=1");
  });

  it("records each heartbeat, keeps beating activations and culls the silent one with its grant's webhook", async () => {
    const key = await heartbeatKey();
    const [beating, silent] = [await activationOf(key), await activationOf(key)];
    const start = ctx.clock.now();
    ctx.clock.set(new Date(start.getTime() + 10 * MINUTE));
    try {
      const response = await beat(key, beating);
      expect(response.statusCode, response.body).toBe(204);
    } finally {
      ctx.clock.set(start);
    }
    const row = await ctx.deps.db.selectFrom("license_key_activations").selectAll().where("id", "=", beating).executeTakeFirstOrThrow();
    expect(row.last_heartbeat_at).toEqual(new Date(start.getTime() + 10 * MINUTE));
    // Within the grace nothing lapses.
    expect(await cullAt(new Date(start.getTime() + 15 * MINUTE - 1000))).toBe(0);
    expect(await cullAt(new Date(start.getTime() + 16 * MINUTE))).toBe(1);
    expect(await live(key.id)).toEqual([beating]);
    const events = await grantUpdates(key.grantId);
    expect(events).toHaveLength(1);
    expect(events[0]!.organization_id).toBe(orgId);
    // A heartbeat for the culled activation: validate's 404, and it stays culled.
    const late = await beat(key, silent);
    expect(late.statusCode, late.body).toBe(404);
    expect(late.json()).toEqual({ error: "ResourceNotFound", detail: "Not found" });
    expect(await live(key.id)).toEqual([beating]);
  });

  it("gives issued keys the heartbeat terms of their benefit when it is edited", async () => {
    const key = await heartbeatKey({ heartbeat_interval_seconds: null, heartbeat_grace_seconds: null });
    const token = await createOrganizationToken(ctx.deps, orgId, ["benefits:write"]);
    const response = await ctx.request({
      method: "PATCH",
      url: `/v1/benefits/${key.benefit_id}`,
      token,
      payload: { type: "license_keys", properties: { heartbeat: { interval_seconds: 3600, grace_seconds: 120 } } },
    });
    expect(response.statusCode, response.body).toBe(200);
    const row = await ctx.deps.db.selectFrom("license_keys").selectAll().where("id", "=", key.id).executeTakeFirstOrThrow();
    expect([row.heartbeat_interval_seconds, row.heartbeat_grace_seconds]).toEqual([3600, 120]);
  });

  it("never culls the activations of a key without a heartbeat interval", async () => {
    const key = await heartbeatKey({ heartbeat_interval_seconds: null, heartbeat_grace_seconds: null });
    await activationOf(key);
    await cullAt(new Date(ctx.clock.now().getTime() + 365 * 24 * 60 * MINUTE));
    expect(await live(key.id)).toHaveLength(1);
  });

  it("holds the activation limit under parallel activations while culling runs", async () => {
    const key = await heartbeatKey({ limit_activations: 2 });
    await activationOf(key);
    await activationOf(key);
    // Both lapsed: the cull frees two slots while eight activations race for them.
    await ctx.deps.db
      .updateTable("license_key_activations")
      .set({ created_at: new Date(ctx.clock.now().getTime() - 60 * MINUTE) })
      .where("license_key_id", "=", key.id)
      .execute();
    const [culled, ...answers] = await Promise.all([
      cullSilentLicenseActivations(ctx.deps),
      ...Array.from({ length: 8 }, () => activate(key)),
    ]);
    const accepted = answers.filter((answer) => answer.statusCode === 200).length;
    for (const answer of answers) expect([200, 403], answer.body).toContain(answer.statusCode);
    // Each activation counted the slots before or after the cull, never in between: at most the limit.
    expect(culled).toBe(2);
    expect(accepted).toBeLessThanOrEqual(2);
    expect(await live(key.id)).toHaveLength(accepted);
  });

  describe("bad input", () => {
    let key: { id: string; key: string };
    let activationId: string;
    let deactivatedId: string;
    let otherActivationId: string;
    let otherOrgKey: { key: string };
    beforeAll(async () => {
      key = await heartbeatKey();
      activationId = await activationOf(key);
      deactivatedId = await activationOf(key);
      await ctx.request({
        method: "POST",
        url: "/v1/customer-portal/license-keys/deactivate",
        payload: { key: key.key, organization_id: orgId, activation_id: deactivatedId },
      });
      otherActivationId = await activationOf(await heartbeatKey());
      otherOrgKey = await createLicenseKey(ctx.deps, otherOrgId, (await createCustomer(ctx.deps, otherOrgId)).id);
    });
    const post = jsonRequest("POST", HEARTBEAT, () => null);
    const body = (overrides: Record<string, unknown> = {}) => ({
      key: key.key,
      organization_id: orgId,
      activation_id: activationId,
      ...overrides,
    });
    const heartbeats = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*) AS n FROM license_key_activations WHERE last_heartbeat_at IS NOT NULL`.execute(
            ctx.deps.db,
          )
        ).rows[0]!.n,
      );
    let before = 0;
    beforeAll(async () => {
      before = await heartbeats();
    });

    badInputTable(
      () => ctx.request,
      [
        { name: "an unknown key", request: () => post(body({ key: "NOPE" }))(), status: 404, error: "ResourceNotFound" },
        {
          name: "another organization's key",
          request: () => post(body({ key: otherOrgKey.key }))(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "another key's activation",
          request: () => post(body({ activation_id: otherActivationId }))(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a deactivated activation",
          request: () => post(body({ activation_id: deactivatedId }))(),
          status: 404,
          error: "ResourceNotFound",
        },
        {
          name: "a missing activation_id",
          request: () => post({ key: key.key, organization_id: orgId })(),
          status: 422,
          loc: ["body", "activation_id"],
        },
        {
          name: "a non-UUID organization_id",
          request: () => post(body({ organization_id: "nope" }))(),
          status: 422,
          loc: ["body", "organization_id"],
        },
        { name: "an overlong key", request: () => post(body({ key: "K".repeat(257) }))(), status: 422, loc: ["body", "key"] },
        { name: "a body that is not an object", request: () => post([1])(), status: 422 },
      ],
      async () => expect(await heartbeats()).toBe(before),
    );
  });
});
