import type { Task } from "graphile-worker";
import type { EmailDelivery } from "./email-delivery.service.ts";

const emailIdOf = (payload: unknown): string | undefined =>
  typeof payload === "object" && payload !== null && "emailId" in payload && typeof payload.emailId === "string"
    ? payload.emailId
    : undefined;

/** `emails.send`: one email of the outbox; a temporary failure throws, and graphile-worker retries with its backoff. */
export function sendEmailTask(delivery: EmailDelivery): Task {
  return async (payload, helpers) => {
    const emailId = emailIdOf(payload);
    if (emailId) await delivery.send(emailId, { number: helpers.job.attempts, max: helpers.job.max_attempts });
  };
}
