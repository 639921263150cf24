import type { TaskList } from "graphile-worker";
import type { Deps } from "./context.ts";
import { TaskName } from "./jobs/task-names.ts";
import { realTime } from "./values/clock.ts";
import { purgeExpiredKeys } from "./http/idempotency-keys.repository.ts";
import { purgeEndedWindows } from "./http/rate-limit-counters.repository.ts";
import { ensureEventPartitions } from "./modules/events/event-partitions.ts";
import { expireCheckoutTask, settleCheckoutTask } from "./modules/checkouts/checkouts.tasks.ts";
import { customerStateChangedTask } from "./modules/customer-state/customer-state.tasks.ts";
import { AGGREGATION_JOB_KEY, aggregateMeterEventsTask, backfillMeterTask } from "./modules/meters/meters.tasks.ts";
import { meterCreditTask } from "./modules/customer-meters/customer-meters.tasks.ts";
import { orderDocumentTasks } from "./modules/orders/order-documents.tasks.ts";
import { fetchLogoTask } from "./modules/organizations/organizations.tasks.ts";
import { handleProcessorEventTask, pruneProcessorEventsTask } from "./modules/processor-events/processor-events.tasks.ts";
import { collectSubscriptionOrderTask, sweepSubscriptionsTask } from "./modules/subscriptions/subscriptions.tasks.ts";
import { webhookTasks } from "./modules/webhooks/webhooks.tasks.ts";
import { sendEmailTask } from "./modules/emails/emails.tasks.ts";
import { settleRefundTask } from "./modules/refunds/refunds.tasks.ts";
import type { Services } from "./services.ts";

/**
 * Every background task by its name (`jobs/task-names.ts`), built on services whose adapters are the
 * application's own (`sharedAdapters`), so a task and a request share one processor, tax engine and blob store.
 */
export function taskList(deps: Deps, services: Services): TaskList {
  return {
    [TaskName.checkoutExpire]: expireCheckoutTask(deps, services.checkoutSessions, services.checkoutAbandonment),
    [TaskName.checkoutSettle]: settleCheckoutTask(services.checkoutConfirmation),
    ...webhookTasks(services.webhookDelivery),
    ...orderDocumentTasks(deps, services.blobs),
    [TaskName.subscriptionsSweep]: sweepSubscriptionsTask(services.subscriptionRenewals),
    [TaskName.subscriptionCollect]: collectSubscriptionOrderTask(services.subscriptionRenewals),
    [TaskName.refundSettle]: settleRefundTask(services.recoverRefund),
    [TaskName.customerStateChanged]: customerStateChangedTask(services.customerStates),
    [TaskName.meterBackfill]: backfillMeterTask(services.meters),
    [TaskName.meterEventsAggregate]: aggregateMeterEventsTask(deps.db, services.meters),
    [TaskName.idempotencyPurge]: async () => {
      await purgeExpiredKeys(deps.db, realTime(deps.now));
    },
    [TaskName.meterCredit]: meterCreditTask(services.customerMeters),
    [TaskName.eventPartitions]: async () => {
      await ensureEventPartitions(deps.db, realTime(deps.now));
    },
    [TaskName.organizationLogoFetch]: fetchLogoTask(deps),
    [TaskName.rateLimitPurge]: async () => {
      await purgeEndedWindows(deps.db, realTime(deps.now));
    },
    // Stripe's events are stored (and their jobs enqueued) only when Stripe is the processor.
    ...(services.processorEvents ? { [TaskName.processorEventHandle]: handleProcessorEventTask(services.processorEvents) } : {}),
    [TaskName.processorEventsPrune]: pruneProcessorEventsTask(deps),
    [TaskName.emailSend]: sendEmailTask(services.emailDelivery),
    [TaskName.subscriptionReminders]: async () => {
      await services.subscriptionReminders();
    },
    [TaskName.licenseActivationsCull]: async () => {
      await services.licenseActivationsCull();
    },
  };
}

/** Recurring tasks, in graphile-worker's crontab syntax: one process enqueues each tick, whatever runs. */
export const crontab = [
  `* * * * * ${TaskName.subscriptionsSweep} ?max=1`,
  // Restarts the aggregation's own chain (every few seconds) should it have stopped; a pending run keeps its time.
  `* * * * * ${TaskName.meterEventsAggregate} ?max=1&jobKey=${AGGREGATION_JOB_KEY}&jobKeyMode=preserve_run_at`,
  `17 * * * * ${TaskName.idempotencyPurge} ?max=1`,
  `41 * * * * ${TaskName.eventPartitions} ?max=1`,
  `47 * * * * ${TaskName.rateLimitPurge} ?max=1`,
  `23 4 * * * ${TaskName.processorEventsPrune} ?max=1`,
  // Minute 30, as the hosted service scans; a reminder missed by a down hour is written by the next scan.
  `30 * * * * ${TaskName.subscriptionReminders} ?max=1`,
  // Every minute: an activation lapses within a minute of its grace, whatever the worker's restarts.
  `* * * * * ${TaskName.licenseActivationsCull} ?max=1`,
].join("\n");
