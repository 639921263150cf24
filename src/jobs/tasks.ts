import type { TaskList } from "graphile-worker";
import type { Deps } from "../context.ts";
import { webhookTasks } from "../modules/webhooks/webhooks.tasks.ts";

/** Every background task, by identifier. Features add theirs here. */
export function taskList(deps: Deps): TaskList {
  return {
    ...webhookTasks(deps),
  };
}
