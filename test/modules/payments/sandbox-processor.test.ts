import { describe, expect, it } from "vitest";
import { sandboxProcessor } from "../../../src/adapters/payment-processors/sandbox.processor.ts";

const charge = (token: string, options: { saveMethod?: boolean; setupOnly?: boolean } = {}) =>
  sandboxProcessor.charge({
    checkoutId: "c1",
    organizationId: "o1",
    customer: { reference: null, email: "buyer@example.com", name: null },
    amount: 100,
    currency: "usd",
    confirmationToken: token,
    setupOnly: options.setupOnly ?? false,
    saveMethod: options.saveMethod ?? false,
  });

const buyer = { reference: null, email: "buyer@example.com", name: null };
const offSessionOf = (methodReference: string) => ({
  methodReference,
  customerReference: null,
  organizationId: "o1",
  orderId: "order1",
  trigger: "subscription_cycle",
  amount: 500,
  currency: "usd",
});

describe("sandbox payment processor", () => {
  it("follows Stripe's test token names at checkout", async () => {
    expect(await charge("tok_visa")).toEqual({
      status: "succeeded",
      reference: expect.stringMatching(/^ch_sandbox_[0-9a-f]{24}$/),
      method: null,
      customerReference: null,
    });
    expect((await charge("tok_amex")).status).toBe("succeeded");
    expect(await charge("tok_chargeDeclined")).toEqual({ status: "declined", message: "Your card was declined." });
    expect((await charge("tok_chargeDeclinedExpiredCard")).status).toBe("declined");
    expect((await charge("tok_chargeDeclinedProcessingError")).status).toBe("failed");
    expect((await charge("pm_card_visa")).status).toBe("declined");
    // tok_chargeCustomerFail attaches fine: only later charges decline.
    expect((await charge("tok_chargeCustomerFail")).status).toBe("succeeded");
  });

  it("looks up its own charges and setups as succeeded (they settle as they are made), and fails others", async () => {
    const charged = await charge("tok_visa");
    const setUp = await charge("tok_visa", { setupOnly: true, saveMethod: true });
    if (charged.status !== "succeeded" || setUp.status !== "succeeded") throw new Error("tok_visa must succeed");
    for (const reference of [charged.reference, setUp.reference])
      expect(await sandboxProcessor.lookupCharge(reference)).toEqual({
        status: "succeeded",
        reference,
        method: null,
        customerReference: null,
      });
    expect(await sandboxProcessor.lookupCharge("pi_123")).toEqual({ status: "failed", message: "No such charge: 'pi_123'" });
  });

  it("saves the method when asked, deterministically per session, with the test card's display facts", async () => {
    const saved = await charge("tok_mastercard", { saveMethod: true, setupOnly: true });
    expect(saved).toEqual({
      status: "succeeded",
      reference: expect.stringMatching(/^seti_sandbox_/),
      method: {
        reference: expect.stringMatching(/^pm_sandbox_tok_mastercard_[0-9a-f]{24}$/),
        type: "card",
        brand: "mastercard",
        last4: "4444",
        expMonth: 12,
        expYear: 2034,
        customerReference: null,
      },
      customerReference: null,
    });
    expect(await charge("tok_mastercard", { saveMethod: true, setupOnly: true })).toEqual(saved);
  });

  it("charges a saved method off-session: declines every charge of tok_chargeCustomerFail, idempotent per attempt", async () => {
    const method = async (token: string) => {
      const outcome = await charge(token, { saveMethod: true });
      if (outcome.status !== "succeeded" || !outcome.method) throw new Error("not saved");
      return outcome.method.reference;
    };
    const offSession = async (reference: string, attemptId: string) =>
      sandboxProcessor.chargeOffSession({ ...offSessionOf(reference), attemptId });
    const visa = await method("tok_visa");
    const first = await offSession(visa, "a1");
    expect(first).toEqual({ status: "succeeded", reference: expect.stringMatching(/^ch_sandbox_/) });
    expect(await offSession(visa, "a1")).toEqual(first);
    expect(await offSession(visa, "a2")).not.toEqual(first);
    const failing = await method("tok_chargeCustomerFail");
    // Stripe's codes for its card of the same name: a generic decline, which dunning retries.
    const declined = { status: "declined", message: "Your card was declined.", declineCode: "generic_decline", methodUnusable: false };
    expect(await offSession(failing, "a3")).toEqual(declined);
    expect(await offSession(failing, "a4")).toEqual(declined);
    expect((await offSession("pm_unknown", "a5")).status).toBe("failed");
  });

  it("sets a method up without charging: the checkout's token rules, tok_chargeCustomerFail attaching and declining later", async () => {
    const setup = (token: string, attemptId = "s1") =>
      sandboxProcessor.setupMethod({ attemptId, customerId: "cus1", organizationId: "o1", customer: buyer, confirmationToken: token });
    const saved = await setup("tok_amex");
    expect(saved).toEqual({
      status: "succeeded",
      method: {
        reference: expect.stringMatching(/^pm_sandbox_tok_amex_[0-9a-f]{24}$/),
        type: "card",
        brand: "amex",
        last4: "8431",
        expMonth: 12,
        expYear: 2034,
        customerReference: null,
      },
    });
    expect(await setup("tok_amex")).toEqual(saved);
    expect(await setup("tok_amex", "s2")).not.toEqual(saved);
    expect(await setup("tok_chargeDeclinedInsufficientFunds")).toEqual({ status: "declined", message: "Your card was declined." });
    expect((await setup("tok_chargeDeclinedProcessingError")).status).toBe("failed");
    expect((await setup("pm_card_visa")).status).toBe("declined");
    const failing = await setup("tok_chargeCustomerFail");
    if (failing.status !== "succeeded") throw new Error("tok_chargeCustomerFail must attach");
    expect(failing.method).toMatchObject({ brand: "visa", last4: "0341" });
    const charged = await sandboxProcessor.chargeOffSession({ ...offSessionOf(failing.method.reference), attemptId: "a1" });
    expect(charged).toMatchObject({ status: "declined", message: "Your card was declined.", declineCode: "generic_decline" });
  });

  it("refunds its own charges deterministically per refund, and fails a charge it never made", async () => {
    const charged = await charge("tok_visa");
    if (charged.status !== "succeeded") throw new Error("tok_visa must succeed");
    const refund = (refundId: string, chargeReference = charged.reference) =>
      sandboxProcessor.refund({ refundId, chargeReference, amount: 60, currency: "usd" });
    const first = await refund("r1");
    expect(first).toEqual({ status: "succeeded", reference: expect.stringMatching(/^re_sandbox_[0-9a-f]{24}$/) });
    expect(await refund("r1")).toEqual(first);
    expect(await refund("r2")).not.toEqual(first);
    expect(await refund("r3", "ch_elsewhere_1")).toEqual({ status: "failed", message: "No such charge: 'ch_elsewhere_1'" });
    const setup = await charge("tok_visa", { setupOnly: true });
    if (setup.status !== "succeeded") throw new Error("setup must succeed");
    expect((await refund("r4", setup.reference)).status).toBe("failed");
  });
});
