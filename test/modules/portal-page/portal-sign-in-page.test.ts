import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestContext } from "../../helpers/context.ts";
import { createCustomer, createOrganization } from "../../helpers/factories.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { codeFromLatestEmail } from "../customer-portal/portal-sign-in-helpers.ts";
import { createMember, enableMembers } from "../customers/member-helpers.ts";

/** The portal page's sign-in forms over HTTP: what each answers to a bad or foreign input, and that it writes nothing then. */
let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; slug: string };

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps);
  await createCustomer(ctx.deps, org.id, { email: "ada@example.com" });
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const SAME_ORIGIN = { origin: "http://localhost:80", host: "localhost:80" };
const post = (slug: string, path: string, form: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) =>
  ctx.request({
    method: "POST",
    url: `/${slug}/portal${path}`,
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    payload: new URLSearchParams(form).toString(),
  });
const signIns = () => ctx.deps.db.selectFrom("portal_sign_ins").select("id").execute();

describe("the portal page's sign-in forms", () => {
  it("shows the email form without a session, and the code form after asking, known email or not", async () => {
    const start = await ctx.request({ method: "GET", url: `/${org.slug}/portal` });
    expect(start.statusCode).toBe(401);
    expect(start.body).toContain("Email me a sign-in code");
    const before = (await signIns()).length;
    const unknown = await post(org.slug, "/sign-in", { email: "nobody@example.com" });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain("Enter your sign-in code");
    expect((await signIns()).length).toBe(before);
  });

  it("refuses bad and foreign inputs with the form again, writing nothing", async () => {
    const before = (await signIns()).length;
    const cases: [string, Promise<{ statusCode: number; body: string }>, number, string][] = [
      ["malformed email", post(org.slug, "/sign-in", { email: "ada@" }), 422, "Enter a valid email address."],
      ["overlong email", post(org.slug, "/sign-in", { email: `${"a".repeat(320)}@example.com` }), 422, "Enter a valid email address."],
      ["missing email", post(org.slug, "/sign-in", {}), 422, "Enter a valid email address."],
      [
        "non-UUID customer",
        post(org.slug, "/sign-in", { email: "ada@example.com", customer_id: "x" }),
        422,
        "Enter a valid email address.",
      ],
      [
        "another site's form",
        post(org.slug, "/sign-in", { email: "ada@example.com" }, { origin: "https://evil.example" }),
        403,
        "another site",
      ],
      ["a wrong code", post(org.slug, "/sign-in/code", { code: "AAAAAA" }), 401, "This code is invalid or has expired."],
      ["a missing code", post(org.slug, "/sign-in/code", {}), 401, "This code is invalid or has expired."],
      ["an overlong code", post(org.slug, "/sign-in/code", { code: "A".repeat(5000) }), 401, "This code is invalid or has expired."],
    ];
    for (const [name, answer, status, text] of cases) {
      const response = await answer;
      expect(response.statusCode, name).toBe(status);
      expect(response.body, name).toContain(text);
    }
    expect((await post(`no-such-shop-${Date.now()}`, "/sign-in", { email: "ada@example.com" })).statusCode).toBe(404);
    expect((await signIns()).length).toBe(before);
  });

  it("lets a member of several customers choose the account, escaped, and sends the code for that one", async () => {
    const team = await createOrganization(ctx.deps);
    await enableMembers(ctx.deps, team.id);
    const first = await createCustomer(ctx.deps, team.id, { name: "<b>First</b>" });
    const second = await createCustomer(ctx.deps, team.id, { name: "Second" });
    await createMember(ctx.deps, first, "owner", { email: "both@example.com" });
    await createMember(ctx.deps, second, "owner", { email: "both@example.com" });
    const choose = await post(team.slug, "/sign-in", { email: "both@example.com" });
    expect(choose.statusCode).toBe(409);
    expect(choose.body).toContain("Choose an account");
    expect(choose.body).toContain("&lt;b&gt;First&lt;/b&gt;");
    expect(choose.body).not.toContain("<b>First</b>");
    const chosen = await post(team.slug, "/sign-in", { email: "both@example.com", customer_id: second.id });
    expect(chosen.statusCode).toBe(200);
    const code = await codeFromLatestEmail(ctx, smtp, "both@example.com");
    const signedIn = await post(team.slug, "/sign-in/code", { code });
    expect(signedIn.statusCode).toBe(303);
    expect(String(signedIn.headers["set-cookie"])).toMatch(/^portal_session=polar_mst_/);
  });

  it("takes a code at its own organization's portal only, and leaves it usable there", async () => {
    await post(org.slug, "/sign-in", { email: "ada@example.com" });
    const code = await codeFromLatestEmail(ctx, smtp, "ada@example.com");
    const other = await createOrganization(ctx.deps);
    expect((await post(other.slug, "/sign-in/code", { code })).statusCode).toBe(401);
    const signedIn = await post(org.slug, "/sign-in/code", { code });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe(`/${org.slug}/portal`);
    expect(String(signedIn.headers["set-cookie"])).toMatch(/^portal_session=polar_cst_/);
  });
});
