import type { Task, TaskList } from "graphile-worker";
import { currentTraceparent, inSpan } from "../observability/spans.ts";

/** The payload key that carries the W3C trace context of the work that enqueued a job. */
const TRACEPARENT = "traceparent";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The current trace context as payload fields: empty when nothing is traced. */
export function traceContextFields(): Record<string, string> {
  const traceparent = currentTraceparent();
  return traceparent ? { [TRACEPARENT]: traceparent } : {};
}

/** The payload with the current trace context added, when something is traced (else unchanged). */
export function withTraceparent(payload: unknown): unknown {
  return isRecord(payload) ? { ...payload, ...traceContextFields() } : payload;
}

/**
 * Each task run in a span of its own trace (`job <task>`), linked to the span that enqueued it:
 * a job runs later, maybe retried, and a request's trace should end with the request.
 */
export function tracedTasks(tasks: TaskList): TaskList {
  const traced =
    (name: string, task: Task): Task =>
    (payload, helpers) => {
      const causedBy = isRecord(payload) && typeof payload[TRACEPARENT] === "string" ? payload[TRACEPARENT] : undefined;
      const attributes = { "job.task": name, "job.id": helpers.job.id, "job.attempt": helpers.job.attempts };
      return inSpan(`job ${name}`, { role: "consumer", root: true, causedBy, attributes }, () => Promise.resolve(task(payload, helpers)));
    };
  return Object.fromEntries(Object.entries(tasks).flatMap(([name, task]) => (task ? [[name, traced(name, task)]] : [])));
}
