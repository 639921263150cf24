import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessTokenService } from "../../../src/modules/organizations/access-tokens.service.ts";
import { badInputTable } from "../../helpers/bad-inputs.ts";
import type { TestContext } from "../../helpers/context.ts";
import { createOrganization, createOrganizationToken, openOrganizationContext } from "../../helpers/factories.ts";

/** The dashboard's outbox reads (`/dashboard/api-ext/emails`): the session's organization only, with `customers:read`. */
describe("dashboard outbox", () => {
  let ctx: TestContext;
  let orgId: string;
  let otherOrgId: string;
  let reader: string;
  let noCustomers: string;
  let otherEmailId: string;
  const ids: string[] = [];
  const sessions: Record<"reader" | "noCustomers" | "owner" | "other", string> = { reader: "", noCustomers: "", owner: "", other: "" };
  const ownerToken = "polar_pat_dashboard-outbox-owner-token";

  const inject = (options: InjectOptions) => ctx.app.inject(options);
  const cookieOf = (response: LightMyRequestResponse): string => String(response.headers["set-cookie"]).split(";")[0]!;

  async function signIn(token: string, organizationId?: string): Promise<string> {
    const response = await inject({ method: "POST", url: "/dashboard/session", payload: { token } });
    expect(response.statusCode, response.body).toBe(201);
    const cookie = cookieOf(response);
    if (!organizationId) return cookie;
    const page = await inject({ method: "GET", url: "/dashboard/", headers: { cookie } });
    const csrf = (JSON.parse(/id="page-data">(.*?)<\/script>/s.exec(page.body)![1]!) as { csrfToken: string }).csrfToken;
    const chosen = await inject({
      method: "POST",
      url: "/dashboard/session/organization",
      headers: { cookie, "x-csrf-token": csrf },
      payload: { organization_id: organizationId },
    });
    expect(chosen.statusCode, chosen.body).toBe(204);
    return cookieOf(chosen);
  }

  const insertEmail = async (organizationId: string, n: number, status: "sent" | "failed" | "kept") =>
    (
      await ctx.deps.db
        .insertInto("emails")
        .values({
          created_at: new Date(Date.UTC(2026, 10, 1, 12, n)),
          organization_id: organizationId,
          dedupe_key: `dashboard-outbox-test:${organizationId}:${n}`,
          template: "order_paid",
          locale: null,
          sender_name: "Shop",
          sender_address: "shop@example.com",
          recipient: `buyer${n}@example.com`,
          reply_to: null,
          list_unsubscribe: null,
          subject: `Your order <b>${n}</b>`,
          html: `<p>Thanks <img src=x onerror=alert(1)> ${n}</p>`,
          text: `Thanks ${n}`,
          message_id: `<${organizationId}.${n}@example.com>`,
          status,
          last_error: status === "failed" ? "550 mailbox unavailable" : null,
          sent_at: status === "sent" ? new Date(Date.UTC(2026, 10, 1, 12, n, 30)) : null,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  beforeAll(async () => {
    const opened = await openOrganizationContext(["organizations:read", "customers:read"], ["organizations:read", "products:read"]);
    ({ ctx } = opened);
    orgId = opened.org.id;
    [reader, noCustomers] = opened.tokens;
    otherOrgId = (await createOrganization(ctx.deps)).id;
    await createAccessTokenService(ctx.deps).ensureOwnerToken(ownerToken);
    ids.push(await insertEmail(orgId, 1, "sent"), await insertEmail(orgId, 2, "failed"), await insertEmail(orgId, 3, "kept"));
    otherEmailId = await insertEmail(otherOrgId, 4, "sent");
    sessions.reader = await signIn(reader);
    sessions.noCustomers = await signIn(noCustomers);
    sessions.owner = await signIn(ownerToken, orgId);
    sessions.other = await signIn(await createOrganizationToken(ctx.deps, otherOrgId, ["organizations:read", "customers:read"]));
  });
  afterAll(async () => ctx?.close());

  const get = (url: string, session: keyof typeof sessions | null = "reader", extra: Record<string, string> = {}) =>
    inject({ method: "GET", url, headers: { ...(session ? { cookie: sessions[session] } : {}), ...extra } });

  it("lists the session organization's emails, newest first, with status, sent time and error", async () => {
    const response = await get("/dashboard/api-ext/emails");
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-store");
    const body = response.json();
    expect(body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(body.items.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    expect(body.items[1]).toEqual({
      id: ids[1],
      created_at: "2026-11-01T12:02:00.000Z",
      template: "order_paid",
      recipient: "buyer2@example.com",
      subject: "Your order <b>2</b>",
      status: "failed",
      attempts: 0,
      sent_at: null,
      last_error: "550 mailbox unavailable",
    });
    const failed = (await get("/dashboard/api-ext/emails?status=failed&limit=1")).json();
    expect(failed.items.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
  });

  it("shows one email with its text and HTML as stored, to the owner's session of that organization too", async () => {
    for (const session of ["reader", "owner"] as const) {
      const response = await get(`/dashboard/api-ext/emails/${ids[0]}`, session);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        id: ids[0],
        status: "sent",
        sent_at: "2026-11-01T12:01:30.000Z",
        sender: "Shop <shop@example.com>",
        text: "Thanks 1",
        html: "<p>Thanks <img src=x onerror=alert(1)> 1</p>",
      });
      expect(response.headers["content-type"]).toContain("application/json");
    }
  });

  const emailsCount = async () =>
    Number(
      (
        await ctx.deps.db
          .selectFrom("emails")
          .select((e) => e.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  let before = 0;
  beforeAll(async () => {
    before = await emailsCount();
  });

  describe("bad input", () => {
    const as =
      (url: string, session: keyof typeof sessions | null, headers: Record<string, string> = {}) =>
      () => ({
        method: "GET" as const,
        url,
        headers: { ...(session ? { cookie: sessions[session] } : {}), ...headers },
      });
    badInputTable(
      () => inject,
      [
        { name: "no session", request: as("/dashboard/api-ext/emails", null), status: 401, error: "SessionEnded" },
        {
          name: "a forged session cookie",
          request: as("/dashboard/api-ext/emails", null, { cookie: "dashboard_session=v1.forged-by-someone" }),
          status: 401,
          error: "SessionEnded",
        },
        { name: "a token without customers:read", request: as("/dashboard/api-ext/emails", "noCustomers"), status: 403 },
        { name: "another organization's email", request: () => as(`/dashboard/api-ext/emails/${otherEmailId}`, "reader")(), status: 404 },
        { name: "a non-UUID id", request: as("/dashboard/api-ext/emails/not-a-uuid", "reader"), status: 422, loc: ["path", "id"] },
        {
          name: "an unknown status",
          request: as("/dashboard/api-ext/emails?status=lost", "reader"),
          status: 422,
          loc: ["query", "status"],
        },
        { name: "a zero limit", request: as("/dashboard/api-ext/emails?limit=0", "reader"), status: 422, loc: ["query", "limit"] },
        { name: "an unknown parameter", request: as("/dashboard/api-ext/emails?organization_id=x", "reader"), status: 422 },
        { name: "a path it does not serve", request: as("/dashboard/api-ext/secrets", "reader"), status: 404 },
      ],
      async () => expect(await emailsCount()).toBe(before),
    );

    it("refuses writes, with or without a CSRF token (a read-only route), and writes nothing", async () => {
      for (const csrf of ["forged", ""]) {
        const response = await inject({
          method: "POST",
          url: `/dashboard/api-ext/emails/${ids[0]}`,
          headers: { cookie: sessions.reader, "x-csrf-token": csrf },
        });
        expect(response.statusCode).toBe(404);
      }
      expect(await emailsCount()).toBe(before);
    });

    it("lets another organization's session see only its own emails", async () => {
      const body = (await get("/dashboard/api-ext/emails", "other")).json();
      expect(body.items.map((e: { id: string }) => e.id)).toEqual([otherEmailId]);
    });
  });
});
