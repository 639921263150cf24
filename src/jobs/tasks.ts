import type { TaskList } from "graphile-worker";
import type { Deps } from "../context.ts";

/** Every background task, by identifier. Features add theirs here. */
export function taskList(_deps: Deps): TaskList {
  return {};
}
