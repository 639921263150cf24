import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { openCommitMarkScope, setCommitMark } from "../db/commit-marks.ts";
import type { Db } from "../db/database.ts";
import { realTime } from "../values/clock.ts";
import { AppError, RequestValidationError, fieldIssue } from "./errors.ts";
import { committedMark, releaseKey, reserveKey, storeResponse, type KeyClaim, type StoredResponse } from "./idempotency-keys.repository.ts";

/**
 * Idempotency-Key on every POST and PATCH under /v1 (docs/decisions.md, "Idempotency-Key"). The
 * first response to a key is kept for a day per principal and replayed, with `Idempotent-Replayed:
 * true`, to retries; the request's own transactions stamp the record at their commit, so a retry
 * after a crash between commit and response never runs the changes twice.
 */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key and its response are kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key; past it (a crashed process) a retry may take it. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** A retry arriving while the first request runs waits for its response this long, then answers 409. */
const WAIT_FOR_RUNNING_MS = 10_000;
const POLL_MS = 25;
/** Response headers kept with the body; the others are per response (request id, version, CORS). */
const KEPT_HEADERS = ["content-type", "location"] as const;
const LOC = ["header", IDEMPOTENCY_KEY_HEADER];

declare module "fastify" {
  interface FastifyRequest {
    /** The idempotency record this request runs under, once reserved. */
    idempotencyRecordId: string | null;
  }
}

class IdempotencyKeyInUse extends AppError {
  constructor(detail: string) {
    super(409, "IdempotencyKeyInUse", detail, { "retry-after": "1" });
  }
}

const appliesTo = (request: FastifyRequest) =>
  (request.method === "POST" || request.method === "PATCH") && request.url.startsWith("/v1/") && request.routeOptions.url !== undefined;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The key as sent (several headers arrive joined), or `null` when absent; a bad one is refused. */
function keyOf(request: FastifyRequest): string | null {
  const raw = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw.join(", ") : raw;
  if (key.length === 0) {
    throw new RequestValidationError([
      fieldIssue(LOC, "String should have at least 1 character", key, "string_too_short", { min_length: 1 }),
    ]);
  }
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new RequestValidationError([
      fieldIssue(LOC, `String should have at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, key, "string_too_long", {
        max_length: IDEMPOTENCY_KEY_MAX_LENGTH,
      }),
    ]);
  }
  return key;
}

/**
 * Whose keys these are. An organization's tokens share its keys (as an account's do at Stripe); a
 * customer's sessions share the customer's; a member's, the member's. A route without a credential
 * is keyed by its client secret where its path holds one (the checkout client routes); a shared
 * public path (license-key activation) is keyed by the whole request, so no caller can take or
 * probe another's key: only the identical request meets it again. Stored hashed (secrets inside).
 */
function scopeOf(request: FastifyRequest, fingerprint: string): string {
  const principal = request.principal;
  if (principal === null) {
    const secret = (request.params as Record<string, unknown> | undefined)?.client_secret;
    return typeof secret === "string" ? `client-secret:${sha256(secret)}` : `anonymous:${fingerprint}`;
  }
  switch (principal.kind) {
    case "user":
      return `user:${principal.tokenId}`;
    case "organization":
      return `organization:${principal.organizationId}`;
    case "customer":
      return `customer:${principal.customerId}`;
    case "member":
      return `member:${principal.memberId}`;
  }
}

function replay(reply: FastifyReply, response: StoredResponse): FastifyReply {
  return reply
    .code(response.statusCode)
    .headers(response.headers)
    .header(IDEMPOTENT_REPLAYED_HEADER, "true")
    .send(response.body ?? undefined);
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) kept[name] = String(value);
  }
  return kept;
}

export interface IdempotencyOptions {
  db: Db;
  now: () => Date;
}

export function registerIdempotency(app: FastifyInstance, { db, now }: IdempotencyOptions): void {
  app.decorateRequest("idempotencyRecordId", null);

  // A scope for the commit mark, around everything the request runs.
  app.addHook("onRequest", (request, _reply, done) => {
    if (request.method === "POST" || request.method === "PATCH") openCommitMarkScope(done);
    else done();
  });

  // A bad key is refused before the body is looked at.
  app.addHook("preValidation", async (request) => {
    if (appliesTo(request)) keyOf(request);
  });

  // After authentication and validation: only a request that may run takes a key.
  app.addHook("preHandler", async (request, reply) => {
    if (!appliesTo(request)) return;
    const key = keyOf(request);
    if (key === null) return;
    const fingerprint = sha256(`${request.method}\n${request.url}\n${JSON.stringify(request.body ?? null)}`);
    const claim: Omit<KeyClaim, "now"> = {
      scope: scopeOf(request, fingerprint),
      key,
      fingerprint,
      ttlMs: IDEMPOTENCY_TTL_MS,
      leaseMs: IDEMPOTENCY_LEASE_MS,
    };
    for (let waited = 0; ; waited += POLL_MS) {
      const reservation = await reserveKey(db, { ...claim, now: realTime(now) });
      switch (reservation.kind) {
        case "run":
          request.idempotencyRecordId = reservation.id;
          setCommitMark(committedMark(db, reservation.id));
          return;
        case "replay":
          return replay(reply, reservation.response);
        case "mismatch":
          throw new RequestValidationError([
            fieldIssue(LOC, "This Idempotency-Key was already used with a different request", key, "idempotency_key_reused"),
          ]);
        case "lost":
          throw new IdempotencyKeyInUse(
            "The first request with this Idempotency-Key made its changes but its response was lost; read the resource instead of retrying.",
          );
        case "busy":
          if (waited >= WAIT_FOR_RUNNING_MS) {
            throw new IdempotencyKeyInUse("A request with this Idempotency-Key is still being processed; retry later.");
          }
          await sleep(POLL_MS);
      }
    }
  });

  // The response of the request that ran: kept, or (a 5xx) not.
  app.addHook("onSend", async (request, reply, payload) => {
    const id = request.idempotencyRecordId;
    if (id === null) return payload;
    request.idempotencyRecordId = null;
    setCommitMark(null);
    try {
      const body =
        typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : payload == null ? null : undefined;
      if (reply.statusCode >= 500 || body === undefined) await releaseKey(db, id, realTime(now));
      else await storeResponse(db, id, { statusCode: reply.statusCode, headers: keptHeaders(reply), body });
    } catch (error) {
      // The client still gets its answer; the record stays running and its lease decides (see reserveKey).
      request.log.error({ err: error }, "idempotency record not completed");
    }
    return payload;
  });
}

/** The header, documented on every POST and PATCH operation under /v1 of the OpenAPI document. */
export function documentIdempotencyKey<T extends { paths?: unknown }>(document: T): T {
  const parameter = {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes retries safe: the first response to a key is kept for 24 hours and replayed, with `Idempotent-Replayed: true`, to requests with the same key. Reusing a key for another request answers 422; a retry while the first request runs waits for it (409 after 10 s).",
    schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
  };
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Record<string, Record<string, { parameters?: unknown[] }>>)) {
    if (!path.startsWith("/v1/")) continue;
    for (const method of ["post", "patch"]) {
      const operation = operations[method];
      if (operation) operation.parameters = [...(operation.parameters ?? []), parameter];
    }
  }
  return document;
}
