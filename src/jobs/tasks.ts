import type { TaskList } from "graphile-worker";
import type { Deps } from "../context.ts";
import { CHECKOUT_EXPIRE_TASK } from "../modules/checkouts/checkouts.service.ts";
import { expireCheckoutTask, settleCheckoutTask } from "../modules/checkouts/checkouts.tasks.ts";
import { CHECKOUT_SETTLE_TASK } from "../modules/checkouts/checkouts.settlement.ts";
import { webhookTasks } from "../modules/webhooks/webhooks.tasks.ts";
import { orderDocumentTasks } from "../modules/orders/order-documents.tasks.ts";

/** Every background task, by identifier. Features add theirs here. */
export function taskList(deps: Deps): TaskList {
  return {
    [CHECKOUT_EXPIRE_TASK]: expireCheckoutTask(deps),
    [CHECKOUT_SETTLE_TASK]: settleCheckoutTask(deps),
    ...webhookTasks(deps),
    ...orderDocumentTasks(deps),
  };
}
