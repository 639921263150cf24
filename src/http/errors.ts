import { Type, type Static } from "@sinclair/typebox";
import { MAX_VALIDATION_ENTRIES, boundInput } from "./bounded-input.ts";

/** One entry of a 422 body, shaped like the reference's validation errors. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * Base of every error the API answers on purpose. `error` is the class name the wire carries,
 * `detail` a message (or, for validation, the list of issues).
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly detail: string;
  readonly headers: Record<string, string>;

  constructor(statusCode: number, error: string, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.statusCode = statusCode;
    this.error = error;
    this.detail = detail;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return { error: this.error, detail: this.detail };
  }
}

export class ResourceNotFound extends AppError {
  constructor(detail = "Not found") {
    super(404, "ResourceNotFound", detail);
  }
}

export class NotPermitted extends AppError {
  constructor(detail = "Not permitted") {
    super(403, "NotPermitted", detail);
  }
}

export class BadRequest extends AppError {
  constructor(detail: string) {
    super(400, "BadRequest", detail);
  }
}

export class Conflict extends AppError {
  constructor(error: string, detail: string) {
    super(409, error, detail);
  }
}

export class RequestBodyTooLarge extends AppError {
  constructor(limit: number) {
    super(413, "RequestBodyTooLarge", `Request body is too large. Max allowed size is ${limit} bytes.`);
  }
}

const REALM = 'Bearer realm="polar"';

/** No usable credential for this route (none sent, or a kind the route does not accept). */
export class Unauthorized extends AppError {
  constructor() {
    super(401, "Unauthorized", "Unauthorized", { "www-authenticate": REALM });
  }
}

const INVALID_TOKEN_DESCRIPTION = "The access token provided is expired, revoked, malformed, or invalid for other reasons.";

/** A bearer token that is unknown, expired, revoked or malformed (RFC 6750 shape). */
export class InvalidToken extends AppError {
  constructor() {
    super(401, "invalid_token", INVALID_TOKEN_DESCRIPTION, {
      "www-authenticate": `${REALM}, error="invalid_token", error_description="${INVALID_TOKEN_DESCRIPTION}"`,
      "cache-control": "no-store",
      pragma: "no-cache",
    });
  }

  override body(): Record<string, unknown> {
    return { error: this.error, error_description: this.detail };
  }
}

const INSUFFICIENT_SCOPE_DESCRIPTION = "The request requires higher privileges than provided by the access token.";

export class InsufficientScope extends AppError {
  constructor(requiredScopes: readonly string[]) {
    super(403, "insufficient_scope", INSUFFICIENT_SCOPE_DESCRIPTION, {
      "www-authenticate": `${REALM}, error="insufficient_scope", error_description="${INSUFFICIENT_SCOPE_DESCRIPTION}", scope="${requiredScopes.join(" ")}"`,
    });
  }

  override body(): Record<string, unknown> {
    return { error: this.error, error_description: this.detail };
  }
}

/** A business rule failed on named fields: answered exactly like a schema failure. */
export class RequestValidationError extends AppError {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(422, "RequestValidationError", issues[0]?.msg ?? "Validation error");
    this.issues = issues;
  }

  /** The entries as sent: bounded in number, each `input` bounded in size and depth (see bounded-input.ts). */
  override body(): Record<string, unknown> {
    const detail = this.issues
      .slice(0, MAX_VALIDATION_ENTRIES)
      .map((issue) => ("input" in issue ? { ...issue, input: boundInput(issue.input) } : issue));
    return { error: this.error, detail };
  }
}

/** A single-field rule failure with the pydantic-style `Value error, ` prefix. */
export const valueError = (loc: (string | number)[], message: string, input?: unknown): RequestValidationError =>
  new RequestValidationError([{ loc, msg: `Value error, ${message}`, type: "value_error", input, ctx: { error: {} } }]);

/** One `value_error` entry, for rules that report several failures in one 422. */
export const valueIssue = (loc: (string | number)[], message: string, input?: unknown): ValidationIssue => ({
  loc,
  msg: `Value error, ${message}`,
  type: "value_error",
  input,
  ctx: { error: {} },
});

/** One entry for a rule failure on a field, with the message as given (no `Value error, ` prefix). */
export const fieldIssue = (
  loc: (string | number)[],
  message: string,
  input: unknown,
  type = "value_error",
  ctx?: Record<string, unknown>,
): ValidationIssue => ({ loc, msg: message, type, input, ...(ctx ? { ctx } : {}) });

/** A field the operation needs but the request (or the stored state) leaves empty. */
export const missingIssue = (loc: (string | number)[]): ValidationIssue => ({ loc, msg: "Field required", type: "missing", input: null });

/** OpenAPI/serialization schemas of the error bodies. */
export const ErrorBody = Type.Object({ error: Type.String(), detail: Type.String() }, { title: "Error" });
export type ErrorBody = Static<typeof ErrorBody>;

export const ValidationErrorBody = Type.Object(
  {
    error: Type.Optional(Type.String()),
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
        input: Type.Optional(Type.Unknown()),
        ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
      }),
    ),
  },
  { title: "HTTPValidationError" },
);

/** Seconds a client is asked to wait when the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The database cannot be reached: the request may succeed if retried later (`Retry-After`). */
export class ServiceUnavailable extends AppError {
  constructor() {
    super(503, "ServiceUnavailable", "The service cannot reach its database right now. Retry later.", {
      "retry-after": String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
}

/**
 * PostgreSQL chose this request's transaction as the victim of a deadlock or a serialization
 * conflict with a concurrent one: it was rolled back whole, so nothing was applied, and the same
 * request sent again is expected to succeed once the other has finished.
 */
export class ConcurrentChangeConflict extends AppError {
  constructor() {
    super(503, "ServiceUnavailable", "The request conflicted with a concurrent change and was not applied. Retry it.", {
      "retry-after": "1",
    });
  }
}

/** A request with a body must say how long it is, so the size limit applies before reading it. */
export class LengthRequired extends AppError {
  constructor() {
    super(411, "LengthRequired", "Content-Length header is required.");
  }
}
