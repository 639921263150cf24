import type { TaskList } from "graphile-worker";
import type { Deps } from "../context.ts";
import { CHECKOUT_EXPIRE_TASK } from "../modules/checkouts/checkouts.service.ts";
import { expireCheckoutTask } from "../modules/checkouts/checkouts.tasks.ts";

/** Every background task, by identifier. Features add theirs here. */
export function taskList(_deps: Deps): TaskList {
  return {
    [CHECKOUT_EXPIRE_TASK]: expireCheckoutTask(_deps),
  };
}
