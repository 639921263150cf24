import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeOrderPaidEmail } from "../../../src/flows/order-paid-email.ts";
import { TaskName } from "../../../src/jobs/task-names.ts";
import { TemporaryMailFailure } from "../../../src/adapters/mail-transports/mail-transport.ts";
import { createSmtpTransport } from "../../../src/adapters/mail-transports/smtp.transport.ts";
import { SEND_BATCH } from "../../../src/modules/emails/email-delivery.service.ts";
import { recordEmail, SEND_ATTEMPTS } from "../../../src/modules/emails/emails.steps.ts";
import type { TestContext } from "../../helpers/context.ts";
import { pdfText } from "../../helpers/pdf.ts";
import { runDocumentJobs } from "../orders/order-documents-helpers.ts";
import { createOrganization, createOrganizationToken, registerForTax } from "../../helpers/factories.ts";
import { queuedJobs } from "../../helpers/jobs.ts";
import { startMailingContext, stopMailingContext, type TestSmtpServer } from "../../helpers/smtp-server.ts";
import { openCheckoutThroughApi } from "../checkouts/checkout-helpers.ts";
import {
  BUYER,
  confirmationsOf,
  hasListUnsubscribe,
  licensedProduct,
  makeEmailJobsDue,
  payCheckout,
  runEmailJobs,
} from "./email-helpers.ts";

let smtp: TestSmtpServer;
let ctx: TestContext;
let org: { id: string; name: string };
let token: string;

beforeAll(async () => {
  ({ ctx, smtp } = await startMailingContext());
  org = await createOrganization(ctx.deps, `Ada & Co ${Date.now()}`);
  await ctx.deps.db
    .updateTable("organizations")
    .set({ avatar_url: "https://cdn.shop.example/logo.png", email: "support@adaco.example" })
    .where("id", "=", org.id)
    .execute();
  await registerForTax(ctx.deps, org.id);
  token = await createOrganizationToken(ctx.deps, org.id, ["checkouts:write"]);
});
afterAll(() => stopMailingContext({ ctx, smtp }));

const receivedBy = (address: string) =>
  smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === address);

describe("order confirmation email", () => {
  it("sends one email for a paid checkout: both parts, the license key in full, values escaped, no secrets", async () => {
    const product = await licensedProduct(ctx, org.id, "Pro <script>alert(1)</script>");
    const { order, sessionToken } = await payCheckout(ctx, token, product.product.id, { email: "ada@example.com" });
    const [row] = await confirmationsOf(ctx, order.id);
    expect(row).toMatchObject({ status: "pending", attempts: 0, recipient: "ada@example.com", template: "order_confirmation" });

    await runEmailJobs(ctx);
    const mails = receivedBy("ada@example.com");
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe("Your Pro <script>alert(1)</script> order confirmation");
    expect(mail.from?.value).toEqual([{ address: "mail@shop.example", name: org.name }]);
    // An answer reaches the seller; a receipt is no list to leave.
    expect(mail.replyTo?.value).toEqual([{ address: "support@adaco.example", name: "" }]);
    expect(hasListUnsubscribe(mail)).toBe(false);
    expect(mail.messageId).toBe(row!.message_id);
    expect(mail.date?.getTime()).toBe(Math.floor(order.created_at.getTime() / 1000) * 1000);

    const key = await ctx.deps.db
      .selectFrom("license_keys")
      .selectAll()
      .where("customer_id", "=", order.customer_id)
      .executeTakeFirstOrThrow();
    const html = String(mail.html);
    for (const part of [html, mail.text!]) {
      expect(part).toContain(key.key);
      expect(part).toContain("Up to 3 activations");
      expect(part).toContain("Desktop licence");
      expect(part).toContain(order.receipt_number!);
      // 100.00 plus French VAT, as the receipt formats it.
      expect(part).toContain("$120.00");
      expect(part).not.toContain(sessionToken);
      expect(part).not.toMatch(/polar_(cst|mst|oat|pat)_/);
      expect(part).not.toContain(smtp.password);
    }
    expect(html).toContain("Pro &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain(org.name.replace("&", "&amp;"));
    expect(html).not.toMatch(/<script/i);
    // The seller's logo is the one remote resource; the links are the receipt, the invoice (the buyer
    // gave a billing address), and the portal, which asks the customer to sign in.
    const slug = (await ctx.deps.db.selectFrom("organizations").select("slug").where("id", "=", org.id).executeTakeFirstOrThrow()).slug;
    const portal = `${ctx.deps.config.checkoutBaseUrl}/${slug}/portal`;
    const [logo, receiptLink, invoiceLink, portalLink, ...others] = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) =>
      match[1]!.replaceAll("&amp;", "&"),
    );
    expect({ logo, portalLink, others }).toEqual({ logo: "https://cdn.shop.example/logo.png", portalLink: portal, others: [] });
    const documentLink = (document: string) =>
      new RegExp(`^${ctx.deps.config.publicBaseUrl}/documents/orders/${order.id}/${document}\\?expires=\\d+&signature=`);
    expect(receiptLink).toMatch(documentLink("receipt"));
    expect(invoiceLink).toMatch(documentLink("invoice"));
    expect(mail.text).toContain(`Go to the customer portal:\n${portal}`);
    expect(mail.text).toContain(`Download your receipt (PDF):\n${receiptLink}`);

    // The receipt link works for whoever holds the email: no session, no token.
    const follow = (url: string) => ctx.request({ method: "GET", url: url.replace(ctx.deps.config.publicBaseUrl, "") });
    expect((await follow(receiptLink!)).statusCode).toBe(202);
    await runDocumentJobs(ctx);
    const ready = await follow(receiptLink!);
    expect(ready.statusCode).toBe(303);
    const pdf = await follow(String(ready.headers["location"]));
    expect(pdf.statusCode).toBe(200);
    expect(await pdfText(pdf.rawPayload)).toContain(order.receipt_number!);

    const [sent] = await confirmationsOf(ctx, order.id);
    expect(sent).toMatchObject({ status: "sent", attempts: 1, last_error: null });
    expect(sent!.sent_at).toBeInstanceOf(Date);
    expect(await queuedJobs(ctx.deps.db, { task: TaskName.emailSend })).toEqual([]);
  });

  it("comes from the organization's own sender when it set one (name, address, Reply-To)", async () => {
    const product = await licensedProduct(ctx, org.id, "Branded");
    const sender = {
      email_sender_name: "Ada Billing",
      email_sender_address: "billing@adaco.example",
      email_reply_to: "help@adaco.example",
    };
    await ctx.deps.db.updateTable("organizations").set(sender).where("id", "=", org.id).execute();
    try {
      const { order } = await payCheckout(ctx, token, product.product.id, { email: "branded@example.com" });
      await runEmailJobs(ctx);
      const [mail] = receivedBy("branded@example.com");
      expect(mail?.from?.value).toEqual([{ address: "billing@adaco.example", name: "Ada Billing" }]);
      expect(mail?.replyTo?.value).toEqual([{ address: "help@adaco.example", name: "" }]);
      expect(mail?.messageId).toMatch(/@adaco\.example>$/);
      expect((await confirmationsOf(ctx, order.id))[0]).toMatchObject({ sender_address: "billing@adaco.example" });
    } finally {
      await ctx.deps.db
        .updateTable("organizations")
        .set({ email_sender_name: null, email_sender_address: null, email_reply_to: null })
        .where("id", "=", org.id)
        .execute();
    }
  });

  it("writes nothing when the organization switched order confirmations off, and writes again once switched on", async () => {
    const product = await licensedProduct(ctx, org.id, "Quiet");
    const setSwitch = (on: boolean) =>
      ctx.deps.db
        .updateTable("organizations")
        .set({ customer_email_settings: JSON.stringify({ order_confirmation: on }) })
        .where("id", "=", org.id)
        .execute();
    await setSwitch(false);
    const { order: quiet } = await payCheckout(ctx, token, product.product.id, { email: "quiet@example.com" });
    await setSwitch(true);
    const { order: heard } = await payCheckout(ctx, token, product.product.id, { email: "heard@example.com" });
    expect(await confirmationsOf(ctx, quiet.id)).toEqual([]);
    expect(await confirmationsOf(ctx, heard.id)).toHaveLength(1);
  });

  it("writes in the customer's language, amounts in the locale's format", async () => {
    const product = await licensedProduct(ctx, org.id, "Suite");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "zoe@example.fr", locale: "fr-FR" });
    await runEmailJobs(ctx);
    const [mail] = receivedBy("zoe@example.fr");
    expect(mail?.subject).toBe("Confirmation de votre commande Suite");
    const total = new Intl.NumberFormat("fr-FR", { style: "currency", currency: "USD" }).format(120);
    for (const part of [String(mail!.html), mail!.text!]) {
      expect(part).toContain("Merci pour votre commande");
      expect(part).toContain("Clé de licence");
      expect(part).toContain(total);
    }
    expect(mail!.text).toContain("Jusqu'à 3 activations");
    expect(String(mail!.html)).toContain("Jusqu&#39;à 3 activations");
    expect(String(mail!.html)).toContain('<html lang="fr">');
    expect((await confirmationsOf(ctx, order.id))[0]).toMatchObject({ locale: "fr-FR", status: "sent" });
  });

  it("writes one email per order, however often its cause or its send job is replayed", async () => {
    const product = await licensedProduct(ctx, org.id, "Once");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "once@example.com" });
    const replay = () =>
      ctx.deps.db.transaction().execute(async (trx) => {
        const organization = await trx.selectFrom("organizations").selectAll().where("id", "=", org.id).executeTakeFirstOrThrow();
        const customer = await trx.selectFrom("customers").selectAll().where("id", "=", order.customer_id).executeTakeFirstOrThrow();
        const items = await trx.selectFrom("order_items").selectAll().where("order_id", "=", order.id).execute();
        await writeOrderPaidEmail(trx, ctx.deps, {
          reason: "purchase",
          organization,
          customer,
          order,
          items,
          benefits: [],
          locale: null,
          now: ctx.deps.now(),
        });
      });
    await replay();
    await replay();
    expect(await confirmationsOf(ctx, order.id)).toHaveLength(1);
    await runEmailJobs(ctx);
    // The job of an email already sent, run again (a worker that died after the commit): nothing more is sent.
    const [row] = await confirmationsOf(ctx, order.id);
    await ctx.services.emailDelivery.send(row!.id, { number: 2, max: 25 });
    expect(receivedBy("once@example.com")).toHaveLength(1);
    expect((await confirmationsOf(ctx, order.id))[0]).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("keeps an email while the mail server is down and sends it once when it returns", async () => {
    const product = await licensedProduct(ctx, org.id, "Outage");
    await smtp.stop();
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "later@example.com" });
    await runEmailJobs(ctx);
    const [waiting] = await confirmationsOf(ctx, order.id);
    expect(waiting).toMatchObject({ status: "pending", attempts: 1, sent_at: null });
    expect(waiting!.last_error).toMatch(/ECONNREFUSED/);
    expect(waiting!.last_error).not.toContain(smtp.password);
    const [job] = await queuedJobs(ctx.deps.db, { task: TaskName.emailSend });
    expect(job!.run_at.getTime()).toBeGreaterThan(job!.now.getTime());

    await smtp.start();
    await runEmailJobs(ctx);
    // Still backing off: nothing is sent before its time.
    expect(receivedBy("later@example.com")).toHaveLength(0);
    await makeEmailJobsDue(ctx);
    await runEmailJobs(ctx);
    await makeEmailJobsDue(ctx);
    await runEmailJobs(ctx);
    const mails = receivedBy("later@example.com");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.messageId).toBe(waiting!.message_id);
    expect((await confirmationsOf(ctx, order.id))[0]).toMatchObject({ status: "sent", attempts: 2, last_error: null });
  });

  it("marks an email failed when the server refuses its recipient for good, and does not retry it", async () => {
    smtp.refused.add("gone@example.com");
    const product = await licensedProduct(ctx, org.id, "Bounce");
    const { order } = await payCheckout(ctx, token, product.product.id, { email: "gone@example.com" });
    await runEmailJobs(ctx);
    const [failed] = await confirmationsOf(ctx, order.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, sent_at: null });
    expect(failed!.last_error).toMatch(/550/);
    expect(await queuedJobs(ctx.deps.db, { task: TaskName.emailSend })).toEqual([]);
    await makeEmailJobsDue(ctx);
    await runEmailJobs(ctx);
    expect(receivedBy("gone@example.com")).toHaveLength(0);
    expect((await confirmationsOf(ctx, order.id))[0]).toMatchObject({ status: "failed", attempts: 1 });
  });
  it("retries an email the server defers (4xx) until it is taken, and gives up after the last attempt", async () => {
    smtp.deferred.add("busy@example.com");
    const product = await licensedProduct(ctx, org.id, "Busy");
    const first = await payCheckout(ctx, token, product.product.id, { email: "busy@example.com" });
    await runEmailJobs(ctx);
    const [deferred] = await confirmationsOf(ctx, first.order.id);
    expect(deferred).toMatchObject({ status: "pending", attempts: 1 });
    expect(deferred!.last_error).toMatch(/451/);
    smtp.deferred.delete("busy@example.com");
    await makeEmailJobsDue(ctx);
    await runEmailJobs(ctx);
    expect(receivedBy("busy@example.com")).toHaveLength(1);
    expect((await confirmationsOf(ctx, first.order.id))[0]).toMatchObject({ status: "sent", attempts: 2, last_error: null });

    // The job's last attempt, deferred again: the email is failed, not retried for ever.
    smtp.deferred.add("busy@example.com");
    const second = await payCheckout(ctx, token, product.product.id, { email: "busy@example.com" });
    const [pending] = await confirmationsOf(ctx, second.order.id);
    await ctx.services.emailDelivery.send(pending!.id, { number: SEND_ATTEMPTS, max: SEND_ATTEMPTS });
    expect((await confirmationsOf(ctx, second.order.id))[0]).toMatchObject({ status: "failed", attempts: 1 });
    expect(receivedBy("busy@example.com")).toHaveLength(1);
  });
  it("sends a burst in batches: a job takes the burst's untried emails along, each sent once, each failure by its own job's rules", async () => {
    await runEmailJobs(ctx);
    const organization = await ctx.deps.db.selectFrom("organizations").selectAll().where("id", "=", org.id).executeTakeFirstOrThrow();
    const recipients = Array.from({ length: SEND_BATCH + 5 }, (_, index) => `burst-${index}@example.com`);
    const [busy, gone] = [recipients[1]!, recipients[2]!];
    smtp.deferred.add(busy);
    smtp.refused.add(gone);
    const start = ctx.deps.now().getTime();
    const ids = await ctx.deps.db.transaction().execute(async (trx) => {
      const written: string[] = [];
      for (const [index, recipient] of recipients.entries()) {
        const id = await recordEmail(trx, ctx.deps.config.email, {
          organization,
          audience: { to: "customer", kind: "receipt", setting: "order_confirmation" },
          dedupeKey: `burst:${recipient}`,
          template: "order_confirmation",
          locale: null,
          recipient,
          rendered: { subject: `Burst ${index}`, html: `<p>Burst ${index}</p>`, text: `Burst ${index}` },
          // Written one after the other, as a launch's sales would be: the batch takes the oldest.
          now: new Date(start + index),
        });
        written.push(id!);
      }
      return written;
    });
    const rows = async () =>
      new Map(
        (await ctx.deps.db.selectFrom("emails").selectAll().where("id", "in", ids).execute()).map((row) => [row.recipient, row] as const),
      );

    // The first email's job sends a whole batch: its own and the oldest others never tried.
    await ctx.services.emailDelivery.send(ids[0]!, { number: 1, max: SEND_ATTEMPTS });
    const afterOne = await rows();
    const batch = recipients.slice(0, SEND_BATCH);
    for (const recipient of batch.filter((address) => address !== busy && address !== gone)) {
      expect(afterOne.get(recipient)).toMatchObject({ status: "sent", attempts: 1 });
    }
    // Refused for good: failed at once. Deferred: nothing recorded, its own job retries it.
    expect(afterOne.get(gone)).toMatchObject({ status: "failed", attempts: 1 });
    expect(afterOne.get(busy)).toMatchObject({ status: "pending", attempts: 0, last_error: null });
    for (const recipient of recipients.slice(SEND_BATCH)) expect(afterOne.get(recipient)).toMatchObject({ status: "pending", attempts: 0 });

    // The jobs run: those already sent find nothing to do; the deferred one keeps its own retries.
    await runEmailJobs(ctx);
    expect((await rows()).get(busy)).toMatchObject({ status: "pending", attempts: 1 });
    smtp.deferred.delete(busy);
    await makeEmailJobsDue(ctx);
    await runEmailJobs(ctx);
    const final = await rows();
    expect([...final.values()].filter((row) => row.status === "sent")).toHaveLength(recipients.length - 1);
    expect(final.get(busy)).toMatchObject({ status: "sent", attempts: 2 });
    for (const recipient of recipients) expect(receivedBy(recipient)).toHaveLength(recipient === gone ? 0 : 1);
    expect(await queuedJobs(ctx.deps.db, { task: TaskName.emailSend })).toEqual([]);
  });

  it("writes no email when the payment's transaction fails after it", async () => {
    const product = await licensedProduct(ctx, org.id, "Doomed");
    // The buyer's session is opened after the confirmation is written, in the same transaction.
    await sql
      .raw(
        `CREATE FUNCTION refuse_session() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
         CREATE TRIGGER refuse_session BEFORE INSERT ON customer_sessions FOR EACH ROW EXECUTE FUNCTION refuse_session();`,
      )
      .execute(ctx.deps.db);
    try {
      const emailsBefore = await ctx.deps.db.selectFrom("emails").select("id").execute();
      const session = await openCheckoutThroughApi(ctx, token, { products: [product.product.id] });
      const response = await ctx.request({
        method: "POST",
        url: `/v1/checkouts/client/${session.client_secret}/confirm`,
        payload: { ...BUYER, customer_email: "doomed@example.com", confirmation_token_id: "tok_visa" },
      });
      expect(response.statusCode).toBe(500);
      expect(await ctx.deps.db.selectFrom("emails").select("id").execute()).toEqual(emailsBefore);
      const jobs = await queuedJobs<{ emailId: string }>(ctx.deps.db, { task: TaskName.emailSend });
      expect(jobs.filter((job) => !emailsBefore.some((email) => email.id === job.payload.emailId))).toEqual([]);
    } finally {
      await sql.raw("DROP TRIGGER refuse_session ON customer_sessions; DROP FUNCTION refuse_session();").execute(ctx.deps.db);
    }
  });
  it("takes a refused login for a temporary failure (the configuration is fixed, the email goes), never echoing the password", async () => {
    const { port } = new URL(smtp.url);
    const transport = createSmtpTransport({
      host: "127.0.0.1",
      port: Number(port),
      secure: false,
      auth: { user: "mailer", pass: "wrong-Pa55" },
    });
    try {
      const sending = transport.send({
        from: { name: null, address: "mail@shop.example" },
        to: "ada@example.com",
        replyTo: null,
        listUnsubscribe: null,
        subject: "Hello",
        html: "<p>Hello</p>",
        text: "Hello",
        messageId: "<login-test@shop.example>",
        date: new Date(),
      });
      await expect(sending).rejects.toBeInstanceOf(TemporaryMailFailure);
      await expect(sending).rejects.toThrow(/535|Invalid/);
      await expect(sending).rejects.not.toThrow(/wrong-Pa55/);
    } finally {
      transport.close();
    }
  });
});
