import type { Deps } from "../../context.ts";
import type { Executor } from "../../db/database.ts";
import { enqueueJob, removeJob } from "../../jobs/queue.ts";
import { TaskName } from "../../jobs/task-names.ts";
import { addInterval } from "../../values/calendar.ts";
import { atClockOffset } from "../../values/clock.ts";
import { cycleSubscriptionBenefits, setSubscriptionBenefits } from "../benefits/benefit-grants.service.ts";
import { discountAmount } from "../discounts/discount-amount.ts";
import { allocateReceiptNumber } from "../orders/order-numbers.ts";
import { writeOrder } from "../orders/order-creation.ts";
import { findOrderForUpdate, updateOrder } from "../orders/orders.repository.ts";
import { dueAmount } from "../orders/orders.mapper.ts";
import { publishOrderUpdated, readOrder } from "../orders/orders.service.ts";
import type { OrderRow } from "../orders/orders.table.ts";
import { findOrganization } from "../organizations/organizations.repository.ts";
import type { OffSessionChargeOutcome, PaymentProcessor } from "../../adapters/payment-processors/payment-processor.ts";
import { countFailedPayments, findPaymentMethod, insertPayment, nextAttemptKey } from "../payments/payments.repository.ts";
import type { PaymentMethodRow, PaymentTrigger } from "../payments/payments.table.ts";
import type { TaxEngine } from "../../adapters/tax-engine/tax.engine.ts";
import { recordWebhookEvent } from "../../jobs/webhook-outbox.ts";
import { discountExpired, dunningStep } from "./subscription-billing.ts";
import { endSubscription } from "./subscription-lifecycle.ts";
import { applyPendingUpdate, subscriptionLines } from "./subscription-plan-changes.ts";
import { billableEntries, type PriceLine } from "./subscription-proration.ts";
import { closePeriodUsage } from "./subscription-usage.ts";
import { PaymentFailed } from "./subscriptions.errors.ts";
import * as repo from "./subscriptions.repository.ts";
import { publishSubscriptionEvents } from "./subscriptions.service.ts";
import type { SubscriptionRow } from "./subscriptions.table.ts";

/**
 * How many renewals one sweep runs side by side. Claims skip locked rows, so they never collide;
 * several at once keep a sweep moving while the API's requests share the pool, and three leave
 * most of a pool of ten to the requests (bench/README.md, subscription renewals).
 */
const SWEEP_CONCURRENCY = 3;

const linesTotal = (lines: readonly PriceLine[]) => lines.reduce((sum, line) => sum + line.amount, 0);

/** Runs `step` on SWEEP_CONCURRENCY loops until it reports nothing left; returns how many steps did something. */
async function drain(step: () => Promise<boolean>): Promise<number> {
  let done = 0;
  const loop = async () => {
    while (await step()) done += 1;
  };
  await Promise.all(Array.from({ length: SWEEP_CONCURRENCY }, loop));
  return done;
}

/** How long an inline charge has to settle before the recovery job takes over (as a checkout's settle). */
const COLLECT_RECOVERY_DELAY_MS = 5 * 60 * 1000;
const collectJobKey = (orderId: string) => `${TaskName.subscriptionCollect}:${orderId}`;

/**
 * Renewals and failed payments: at `current_period_end` a subscription moves to its next period
 * with a `subscription_cycle` order, charged off-session on its saved method; a failed charge makes
 * it `past_due` and is retried on the dunning schedule until it succeeds or the subscription is
 * revoked. Every step reads the injected clock.
 */
export function createSubscriptionRenewals(deps: Deps, payments: PaymentProcessor, taxEngine: TaxEngine) {
  const { db } = deps;

  /**
   * Moves a locked, due subscription to its next period and writes that period's order (billed in
   * advance, with the changes' waiting credits and debits). Its scheduled change applies first.
   * `restart` starts a period now whatever was scheduled for the end of the old one (a change that
   * restarts the cycle), billed as `subscription_update`. Returns the order when it waits for a payment.
   */
  async function cycle(trx: Executor, due: SubscriptionRow, now: Date, options: { restart?: boolean } = {}): Promise<OrderRow | null> {
    // The closing period's usage, billed in arrears whatever follows it (docs/decisions.md, "Metered billing").
    const usage = await closePeriodUsage(trx, due, now);
    if (!options.restart && (due.cancel_at_period_end || (due.ends_at !== null && due.ends_at <= now))) {
      const ended = await endSubscription(trx, due, now);
      return billUsage(trx, ended, usage, due.current_period_end, now);
    }
    if (!options.restart && due.pause_at_period_end) {
      // Paused at the period end: no renewal order (only the closing period's usage), benefits revoked until it resumes.
      const paused = await repo.updateSubscription(trx, due.id, {
        status: "paused",
        paused_at: now,
        pause_at_period_end: false,
        modified_at: now,
      });
      await setSubscriptionBenefits(trx, due.id, false, now);
      await publishSubscriptionEvents(trx, paused, ["subscription.updated", "subscription.paused"], now);
      return billUsage(trx, paused, usage, due.current_period_end, now);
    }
    const row = await applyPendingUpdate(trx, due, now);
    // Leaving a trial re-anchors the periods to the trial's last day, as the anchor does.
    const leavingTrial = row.status === "trialing";
    const anchorDay = leavingTrial ? row.current_period_end.getUTCDate() : row.anchor_day;
    const start = row.current_period_end;
    const end = addInterval(start, row.recurring_interval, row.recurring_interval_count, anchorDay);

    const kept = await discountFor(trx, row, start);
    const keepsDiscount = kept !== null;
    const appliedAt = kept?.appliedAt ?? null;
    const product = await productFacts(trx, row.product_id);
    const lines = await subscriptionLines(trx, row, product.name);
    const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
    // The subscription's amount is its static price; the order's discount also covers the usage lines (the anchor's).
    const discounted = kept ? discountAmount(kept.discount, subtotal, row.currency) : 0;
    const orderDiscount = kept ? discountAmount(kept.discount, subtotal + linesTotal(usage), row.currency) : 0;

    const cycled = await repo.updateSubscription(trx, row.id, {
      status: leavingTrial ? "active" : row.status,
      anchor_day: anchorDay,
      current_period_start: start,
      current_period_end: end,
      discount_id: keepsDiscount ? row.discount_id : null,
      discount_applied_at: appliedAt,
      amount: subtotal - discounted,
      modified_at: now,
    });
    await publishSubscriptionEvents(trx, cycled, ["subscription.cycled", "subscription.updated"], now);
    return billOrder(trx, cycled, {
      billingReason: options.restart ? "subscription_update" : "subscription_cycle",
      product,
      lines: [...lines, ...usage],
      discount: orderDiscount,
      discountId: keepsDiscount ? row.discount_id : null,
      now,
    });
  }

  /**
   * The closing period's usage alone, on a subscription that does not renew (ended, paused): an
   * order only when there is usage, less the discount that a renewal at `usageEnd` would keep.
   */
  async function billUsage(trx: Executor, row: SubscriptionRow, usage: PriceLine[], usageEnd: Date, now: Date): Promise<OrderRow | null> {
    if (usage.length === 0) return null;
    const product = await productFacts(trx, row.product_id);
    const kept = await discountFor(trx, row, usageEnd);
    return billOrder(trx, row, {
      billingReason: "subscription_cycle",
      product,
      lines: usage,
      discount: kept ? discountAmount(kept.discount, linesTotal(usage), row.currency) : 0,
      discountId: kept ? row.discount_id : null,
      now,
    });
  }

  /**
   * The subscription's discount if it still applies to a period starting at `start` (the anchor
   * checks expiry against the new period's start), with the start of its first billed period.
   */
  async function discountFor(trx: Executor, row: SubscriptionRow, start: Date) {
    if (!row.discount_id) return null;
    const discount = await trx.selectFrom("discounts").selectAll().where("id", "=", row.discount_id).executeTakeFirst();
    const appliedAt = row.discount_applied_at ?? start;
    return discount && !discountExpired(discount, appliedAt, start) ? { discount, appliedAt } : null;
  }

  /**
   * Ends a locked subscription now (a revoke), its open period's usage up to now billed first, as the
   * anchor settles an open meter period; returns the order when it waits for a payment.
   */
  async function endNow(trx: Executor, row: SubscriptionRow, now: Date, cancellation: Parameters<typeof endSubscription>[3]) {
    const usage = await closePeriodUsage(trx, { ...row, current_period_end: now }, now);
    const ended = await endSubscription(trx, row, now, cancellation);
    return billUsage(trx, ended, usage, now, now);
  }

  const productFacts = (trx: Executor, productId: string) =>
    trx.selectFrom("products").select(["name", "is_tax_applicable"]).where("id", "=", productId).executeTakeFirstOrThrow();

  /**
   * Writes a subscription's order: the period's lines less the discount, then the waiting credits
   * and debits of its changes (as `proration` items, not discounted again; credits only as far as
   * the order stays at or above zero, the rest waits), then tax. Nothing to bill writes nothing.
   * Returns the order when it waits for a payment.
   */
  async function billOrder(
    trx: Executor,
    row: SubscriptionRow,
    input: {
      billingReason: "subscription_cycle" | "subscription_update";
      product: { name: string; is_tax_applicable: boolean };
      lines: PriceLine[];
      discount: number;
      discountId: string | null;
      now: Date;
    },
  ): Promise<OrderRow | null> {
    const { now } = input;
    // One after another: a transaction is one connection, which runs one statement at a time.
    const organization = await findOrganization(trx, row.organization_id, null);
    if (!organization) throw new Error(`subscription ${row.id} without its organization`);
    const customer = await trx.selectFrom("customers").selectAll().where("id", "=", row.customer_id).executeTakeFirstOrThrow();
    const staticSubtotal = input.lines.reduce((sum, line) => sum + line.amount, 0);
    const entries = billableEntries(staticSubtotal - input.discount, await repo.unbilledEntries(trx, row.id));
    if (input.lines.length === 0 && entries.billed.length === 0) return null;
    const lines = [
      ...input.lines,
      ...entries.billed.map((entry) => ({ priceId: entry.product_price_id, amount: entry.amount, label: entry.label, proration: true })),
    ];
    const subtotal = lines.reduce((sum, line) => sum + line.amount, 0);
    const taxable = subtotal - input.discount;
    const behavior = row.tax_behavior ?? "exclusive";
    const address = customer.billing_address;
    const computed =
      input.product.is_tax_applicable && address && taxable > 0
        ? taxEngine.calculate({
            amount: taxable,
            currency: row.currency,
            behavior,
            country: address.country,
            state: address.state,
            isBusiness: customer.tax_id !== null,
            taxId: customer.tax_id?.[0] ?? null,
            registrations: organization.tax_registrations,
            sellerCountry: organization.legal_address?.country ?? null,
            at: now,
          })
        : null;
    const tax = computed?.amount ?? 0;
    const net = behavior === "inclusive" ? taxable - tax : taxable;
    const { order } = await writeOrder(trx, {
      organization,
      customer,
      checkoutId: null,
      subscriptionId: row.id,
      billingReason: input.billingReason,
      status: net + tax > 0 ? "pending" : "paid",
      product: { id: row.product_id, name: input.product.name },
      lines,
      amounts: { subtotal, discount: input.discount, net, tax, total: net + tax, currency: row.currency },
      taxRate: { basisPoints: computed?.basisPoints ?? null, reverseCharge: computed?.reverseCharge ?? false },
      discountId: input.discountId,
      billing: { name: customer.billing_name ?? customer.name, address, taxId: customer.tax_id },
      seats: row.seats,
      metadata: {},
      customFieldData: row.custom_field_data,
      paymentReference: null,
      now,
    });
    await repo.markEntriesBilled(
      trx,
      order.id,
      entries.billed.map((entry) => entry.id),
      entries.split,
    );
    const created = await readOrder(trx, order);
    await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "order.created", data: created, now });
    if (order.status === "paid") {
      await recordWebhookEvent(trx, { organizationId: row.organization_id, type: "order.paid", data: created, now });
      if (order.billing_reason === "subscription_cycle") await cycleSubscriptionBenefits(trx, row.id, now);
      return null;
    }
    // Should the inline charge never settle (a crash), the job collects the order.
    await enqueueJob(
      trx,
      TaskName.subscriptionCollect,
      { orderId: order.id },
      {
        runAt: new Date(now.getTime() + COLLECT_RECOVERY_DELAY_MS),
        jobKey: collectJobKey(order.id),
      },
    );
    return order;
  }

  /**
   * Bills a locked subscription's waiting credits and debits now (`proration_behavior: invoice`) in a
   * `subscription_update` order; returns it when it waits for a payment. When the credits outweigh
   * the debits there is nothing to charge: everything waits for the next renewal, which it lowers.
   */
  async function invoiceChanges(trx: Executor, row: SubscriptionRow, now: Date): Promise<OrderRow | null> {
    const waiting = await repo.unbilledEntries(trx, row.id);
    if (waiting.reduce((sum, entry) => sum + entry.amount, 0) <= 0) return null;
    const product = await productFacts(trx, row.product_id);
    return billOrder(trx, row, { billingReason: "subscription_update", product, lines: [], discount: 0, discountId: null, now });
  }

  /** Records a charge's outcome on the locked order and subscription, with the anchor's events. */
  async function settle(
    trx: Executor,
    order: OrderRow,
    row: SubscriptionRow,
    outcome: { reference: string } | { message: string; attempted: boolean },
    now: Date,
  ): Promise<void> {
    await removeJob(trx, collectJobKey(order.id));
    if ("reference" in outcome) {
      const customer = await trx.selectFrom("customers").selectAll().where("id", "=", order.customer_id).executeTakeFirstOrThrow();
      const paid = await updateOrder(trx, order.id, {
        status: "paid",
        payment_reference: outcome.reference,
        receipt_number: await allocateReceiptNumber(trx, order.organization_id, customer),
        next_payment_attempt_at: null,
        modified_at: now,
      });
      const published = await publishOrderUpdated(trx, paid, now);
      await recordWebhookEvent(trx, { organizationId: order.organization_id, type: "order.paid", data: published, now });
      if (row.status === "past_due" && !(await repo.hasOtherDunningOrder(trx, row.id, order.id))) {
        const recovered = await repo.updateSubscription(trx, row.id, { status: "active", past_due_at: null, modified_at: now });
        await setSubscriptionBenefits(trx, row.id, true, now);
        await publishSubscriptionEvents(trx, recovered, ["subscription.updated", "subscription.active"], now);
      }
      // A paid renewal renews the grants (those a recovery just restored included).
      if (order.billing_reason === "subscription_cycle") await cycleSubscriptionBenefits(trx, row.id, now);
      return;
    }
    const pastDueAt = row.past_due_at ?? now;
    const failures = await countFailedPayments(trx, order.id, ["subscription_cycle", "retry_dunning"]);
    const step = dunningStep({ failures, pastDueAt, now, hasMethod: outcome.attempted });
    // An ended subscription's last usage order is retried on the same schedule, then voided; the subscription stays as it is.
    const ended = row.ended_at !== null;
    if (step.revoke && !ended) {
      await endSubscription(trx, row, now);
      return;
    }
    const failed = await updateOrder(trx, order.id, {
      ...(step.revoke ? { status: "void" as const } : {}),
      next_payment_attempt_at: step.nextAttemptAt,
      modified_at: now,
    });
    await publishOrderUpdated(trx, failed, now);
    if (!ended && row.status !== "past_due") {
      const pastDue = await repo.updateSubscription(trx, row.id, { status: "past_due", past_due_at: pastDueAt, modified_at: now });
      // The anchor's default grace period is none: benefits go at the first failure.
      await setSubscriptionBenefits(trx, row.id, false, now);
      await publishSubscriptionEvents(trx, pastDue, ["subscription.updated", "subscription.past_due"], now);
    }
  }

  /**
   * Locks a subscription order for a charge as every change of a subscription does, the
   * subscription first and then the order, so a revoke either waits for the charge or voids the
   * order first (then nothing is charged). Null when either is gone.
   */
  async function lockForCharge(trx: Executor, orderId: string): Promise<{ row: SubscriptionRow; order: OrderRow } | null> {
    const head = await trx.selectFrom("orders").select("subscription_id").where("id", "=", orderId).executeTakeFirst();
    if (!head?.subscription_id) return null;
    const row = await repo.findSubscriptionForUpdate(trx, head.subscription_id, { allowed: null });
    const order = await findOrderForUpdate(trx, orderId, { allowed: null });
    return row && order ? { row, order } : null;
  }

  /**
   * Charges a locked pending order on `method`, records the attempt and settles the order. The
   * processor's idempotency key is the order and the attempt's number, so a run that died before
   * committing repeats the same attempt rather than charging twice. A customer's own attempt
   * (`retry_customer`) settles the order only when it succeeds: a failed one is recorded but neither
   * counted toward dunning nor moves its schedule. A method refused before any charge (a new card
   * declined at setup) is a failed attempt as it is.
   */
  async function chargeLocked(
    trx: Executor,
    locked: { row: SubscriptionRow; order: OrderRow },
    method: PaymentMethodRow | { refused: string },
    trigger: PaymentTrigger,
  ): Promise<OffSessionChargeOutcome> {
    const { row, order } = locked;
    const now = deps.now();
    const amount = dueAmount(order);
    const outcome: OffSessionChargeOutcome =
      "refused" in method
        ? { status: "declined", message: method.refused }
        : await payments.chargeOffSession({
            attemptId: await nextAttemptKey(trx, order.id),
            methodReference: method.processor_reference,
            amount,
            currency: order.currency,
          });
    await insertPayment(trx, {
      created_at: now,
      modified_at: null,
      organization_id: order.organization_id,
      customer_id: order.customer_id,
      order_id: order.id,
      payment_method_id: "refused" in method ? null : method.id,
      status: outcome.status === "succeeded" ? "succeeded" : "failed",
      trigger,
      amount,
      currency: order.currency,
      processor_reference: outcome.status === "succeeded" ? outcome.reference : null,
      decline_message: outcome.status === "succeeded" ? null : outcome.message,
    });
    if (outcome.status === "succeeded") await settle(trx, order, row, { reference: outcome.reference }, now);
    else if (trigger !== "retry_customer") await settle(trx, order, row, { message: outcome.message, attempted: true }, now);
    return outcome;
  }

  /** The method a subscription's orders are charged on: its own, else the customer's default. */
  async function methodToCharge(trx: Executor, row: SubscriptionRow): Promise<PaymentMethodRow | undefined> {
    const customer = await trx
      .selectFrom("customers")
      .select("default_payment_method_id")
      .where("id", "=", row.customer_id)
      .executeTakeFirstOrThrow();
    const methodId = row.payment_method_id ?? customer.default_payment_method_id;
    return methodId ? findPaymentMethod(trx, methodId, row.customer_id) : undefined;
  }

  /** Charges a pending subscription order off-session on its saved method and records the outcome. Idempotent. */
  async function collect(orderId: string, trigger: PaymentTrigger): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const locked = await lockForCharge(trx, orderId);
      if (!locked || locked.order.status !== "pending") return;
      const { row, order } = locked;
      const method = await methodToCharge(trx, row);
      if (!method) {
        await settle(trx, order, row, { message: "No payment method on file.", attempted: false }, deps.now());
        return;
      }
      await chargeLocked(trx, locked, method, trigger);
    });
  }

  /**
   * Charges the order of a change that bills at once (`invoice`, `reset`, an interval change) inside
   * the change's transaction: a charge that fails throws 402 `PaymentFailed`, and the whole change
   * rolls back with it, as the anchor does. Both rows are locked by the caller.
   */
  async function chargeBeforeCommit(trx: Executor, row: SubscriptionRow, order: OrderRow): Promise<void> {
    const method = await methodToCharge(trx, row);
    if (!method) throw new PaymentFailed("missing_payment_method");
    const outcome = await chargeLocked(trx, { row, order }, method, "purchase");
    if (outcome.status !== "succeeded") throw new PaymentFailed("card_error");
  }

  /** Resumes a locked, paused subscription: a fresh period from now, charged at once (the anchor's resume). */
  async function resume(trx: Executor, row: SubscriptionRow, now: Date): Promise<OrderRow | null> {
    const resumed = await repo.updateSubscription(trx, row.id, {
      status: "active",
      paused_at: null,
      resumes_at: null,
      anchor_day: now.getUTCDate(),
      current_period_end: now,
      modified_at: now,
    });
    await setSubscriptionBenefits(trx, row.id, true, now);
    await publishSubscriptionEvents(trx, resumed, ["subscription.updated", "subscription.resumed"], now);
    return cycle(trx, resumed, now);
  }

  /**
   * Renews every subscription whose period has ended, resumes the paused ones whose time has come
   * and retries every dunning charge that is due, oldest first, until none is left, at the clock of
   * the calling context; a subscription several periods behind (the server was down) catches up one
   * period at a time. `organizationId` limits it to one organization.
   */
  async function sweepDue(organizationId: string | undefined): Promise<{ renewed: number; retried: number }> {
    const renewed = await drain(async () => {
      const order = await db.transaction().execute(async (trx) => {
        const row = await repo.claimDueSubscription(trx, deps.now(), organizationId);
        return row ? { pending: await cycle(trx, row, deps.now()) } : null;
      });
      if (order?.pending) await collect(order.pending.id, "subscription_cycle");
      return order !== null;
    });
    const resumed = await drain(async () => {
      const order = await db.transaction().execute(async (trx) => {
        const row = await repo.claimDueResume(trx, deps.now(), organizationId);
        return row ? { pending: await resume(trx, row, deps.now()) } : null;
      });
      if (order?.pending) await collect(order.pending.id, "subscription_cycle");
      return order !== null;
    });
    const retried = await drain(async () => {
      const claimed = await db.transaction().execute(async (trx) => {
        const order = await repo.claimDueRetry(trx, deps.now(), organizationId);
        if (!order) return null;
        // Claimed: no other sweep picks it; the job collects it should this run die before settling.
        await updateOrder(trx, order.id, { next_payment_attempt_at: null });
        await enqueueJob(
          trx,
          TaskName.subscriptionCollect,
          { orderId: order.id, trigger: "retry_dunning" },
          {
            runAt: new Date(deps.now().getTime() + COLLECT_RECOVERY_DELAY_MS),
            jobKey: collectJobKey(order.id),
          },
        );
        return order;
      });
      if (claimed) await collect(claimed.id, "retry_dunning");
      return claimed !== null;
    });
    return { renewed: renewed + resumed, retried };
  }

  /**
   * The sweep: one organization at the caller's clock, or every organization with work due at its
   * own clock (an organization whose sandbox test clock is ahead renews at its time).
   */
  async function sweep(options: { organizationId?: string } = {}): Promise<{ renewed: number; retried: number }> {
    if (options.organizationId) return sweepDue(options.organizationId);
    const totals = { renewed: 0, retried: 0 };
    for (const organization of await repo.organizationsWithDueWork(db, deps.now())) {
      const done = await atClockOffset(organization.clock_offset_ms, () => sweepDue(organization.id));
      totals.renewed += done.renewed;
      totals.retried += done.retried;
    }
    return totals;
  }

  return { sweep, collect, cycle, resume, endNow, invoiceChanges, chargeBeforeCommit, lockForCharge, chargeLocked };
}
export type SubscriptionRenewals = ReturnType<typeof createSubscriptionRenewals>;
