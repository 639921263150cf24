import type { FastifyError, FastifyInstance } from "fastify";
import {
  AppError,
  ConcurrentChangeConflict,
  RequestBodyTooLarge,
  RequestValidationError,
  ServiceUnavailable,
  fieldIssue,
  missingIssue,
} from "./errors.ts";
import { isDatabaseUnavailable, isTransactionConflict } from "./pg-errors.ts";
import { toValidationIssues } from "./validation.ts";

interface PgError {
  code?: string;
}

/** Maps what the framework and the database raise on bad input to the documented bodies. */
function toAppError(error: FastifyError & PgError, bodyLimit: number): AppError | null {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailable();
  if (isTransactionConflict(error)) return new ConcurrentChangeConflict();
  if (error.validation) {
    return new RequestValidationError(toValidationIssues(error.validationContext ?? "body", error.validation));
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new RequestValidationError([fieldIssue(["body", 0], "JSON decode error", {}, "json_invalid", { error: error.message })]);
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new RequestValidationError([missingIssue(["body"])]);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new RequestValidationError([
        fieldIssue(["body"], "Input should be a valid dictionary or object to extract fields from", null, "model_attributes_type"),
      ]);
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new RequestBodyTooLarge(bodyLimit);
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError(400, "BadRequest", "Request body size did not match Content-Length");
    // Unique violations that slip past a service's own checks: a conflict, not a crash.
    case "23505":
      return new AppError(409, "Conflict", "The resource conflicts with an existing one.");
    // Data exceptions (out of range numbers, malformed text for a type): the input was wrong.
    case "22003":
    case "22P02":
    case "22007":
    case "22008":
    case "22021":
    case "22P05":
      return new RequestValidationError([fieldIssue(["body"], "Input value is out of range or malformed", null)]);
    default:
      return null;
  }
}

export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError & PgError, request, reply) => {
    // A route may take less than the app's limit (a webhook); the answer names the limit that applied.
    const known = toAppError(error, request.routeOptions.bodyLimit ?? bodyLimit);
    if (known instanceof ServiceUnavailable) request.log.warn({ err: error }, "database unavailable");
    if (known instanceof ConcurrentChangeConflict) request.log.warn({ err: error }, "transaction rolled back by a concurrent one");
    if (known) {
      // Bodies are sent pre-serialized: error shapes differ from the route's success schema.
      return reply.code(known.statusCode).headers(known.headers).type("application/json").send(JSON.stringify(known.body()));
    }
    if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
      return reply
        .code(error.statusCode)
        .type("application/json")
        .send(JSON.stringify({ error: "BadRequest", detail: error.message }));
    }
    request.log.error({ err: error }, "unhandled error");
    return reply
      .code(500)
      .type("application/json")
      .send(JSON.stringify({ error: "InternalServerError", detail: "An unexpected error occurred. It has been logged." }));
  });

  app.setNotFoundHandler((_request, reply) =>
    reply
      .code(404)
      .type("application/json")
      .send(JSON.stringify({ detail: "Not Found" })),
  );
}
