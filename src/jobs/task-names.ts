/**
 * Every background task identifier, in one list. Features enqueue by these names; the task
 * registry next to the composition root (`src/tasks.ts`) maps each to its handler.
 */
export const TaskName = {
  checkoutExpire: "checkout.expire",
  /** Recovery of a confirm request that died between the charge and the order. */
  checkoutSettle: "checkout.settle",
  webhookFanout: "webhooks.fanout",
  webhookDeliver: "webhooks.deliver",
  orderInvoice: "orders.invoice",
  orderReceipt: "orders.receipt",
  /** Renders and stores a credit note issued for a refund. */
  creditNote: "orders.credit_note",
  /**
   * Renews the subscriptions whose period ended and retries due dunning charges (every minute). A
   * crontab task: graphile-worker's crontab takes no `.` in a task name, hence the `:`.
   */
  subscriptionsSweep: "subscriptions:sweep",
  /** Recovery of a refund whose request died between the refund row and the processor's answer. */
  refundSettle: "refunds.settle",
  /** Recovery of a subscription order's charge that died before settling. */
  subscriptionCollect: "subscriptions.collect",
  /** Records `customer.state_changed` for a customer whose subscriptions or benefit grants changed (debounced). */
  customerStateChanged: "customers.state_changed",
  /** Adds the events ingested before a meter's definition to its pre-aggregates. */
  meterBackfill: "meters.backfill",
  /** Adds the events ingested since the last run to the meters' buckets, then compacts their deltas (every few seconds; a crontab task restarts the chain, hence the `:`). */
  meterEventsAggregate: "meters:aggregate",
  /** Deletes Idempotency-Key records past their 24 hours (hourly; a crontab task, hence the `:`). */
  idempotencyPurge: "idempotency:purge",
  /** Deletes shared rate-limit counters whose window has ended (hourly; `RATE_LIMIT_STORE=postgres` writes them). */
  rateLimitPurge: "rate_limits:purge",
  /** Applies a `meter_credit` grant's credit (granted), its cycle's reset and credit (cycled) or its take-back (revoked) to its customer meter. */
  meterCredit: "customer_meters.credit",
  /** Creates the partitions of `events` for this month and the next ones (hourly; a crontab task, hence the `:`). */
  eventPartitions: "events:partitions",
  /** Fetches an organization's http(s) avatar URL once, when it is set, and stores the logo documents draw. */
  organizationLogoFetch: "organizations.logo_fetch",
  /** Acts on one stored payment processor event (a Stripe webhook), retried while the row it concerns is not committed. */
  processorEventHandle: "processor_events.handle",
  /** Deletes the processor events handled more than 30 days ago (daily; a crontab task, hence the `:`). */
  processorEventsPrune: "processor_events:prune",
  /** Writes the renewal and trial-end reminders due, at each organization's time (hourly; a crontab task, hence the `:`). */
  subscriptionReminders: "subscriptions:remind",
  /** Sends one email of the outbox (`emails`), retried with backoff while the mail server is unreachable or answers 4xx. */
  emailSend: "emails.send",
  /** Deactivates license key activations silent past their heartbeat grace (every minute; a crontab task, hence the `:`). */
  licenseActivationsCull: "license_keys:cull_activations",
} as const;
export type TaskName = (typeof TaskName)[keyof typeof TaskName];
