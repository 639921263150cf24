import type { FastifyInstance, FastifyRequest } from "fastify";
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import { AppError } from "./errors.ts";
import { incrementCounter } from "./rate-limit-counters.repository.ts";

export class TooManyRequests extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, "TooManyRequests", "Rate limit exceeded, retry later.", { "retry-after": String(retryAfterSeconds) });
  }
}

export interface RateLimitRule {
  /** Names the rule's buckets, unique in the app: a shared store holds every rule's counters in one table. */
  name: string;
  max: number;
  windowMs: number;
  /** The bucket a request counts against. */
  key: (request: FastifyRequest) => string;
}

/**
 * The counters in `rate_limit_counters`, shared by every process on the database: one upsert per
 * rule and request. A database error fails the request (503 when unreachable), like every other query.
 */
function postgresStore(db: Db, now: () => Date): FastifyRateLimitStoreCtor {
  return class PostgresRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const at = now();
      incrementCounter(db, key, timeWindow, at).then(
        (row) => callback(null, { current: row.count, ttl: row.window_ends_at.getTime() - at.getTime() }),
        (error: Error) => callback(error),
      );
    }
    /** Rules differ by their keys' names (`RateLimitRule.name`), not by a store of their own. */
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * The plugin, once for the whole app, with the store `RATE_LIMIT_STORE` names: this process's
 * memory (the plugin's own LRU, the default) or PostgreSQL. No route is limited until it asks
 * (`global: false`).
 */
export async function registerRateLimiting(app: FastifyInstance, config: Config, db: Db, now: () => Date): Promise<void> {
  await app.register(rateLimit, { global: false, ...(config.rateLimitStore === "postgres" ? { store: postgresStore(db, now) } : {}) });
}

/**
 * A preHandler (the body is parsed by then, so a rule may count by a body field) enforcing every
 * rule: the first exhausted one refuses with 429 and `Retry-After`. The plugin's own handler runs
 * one limit per request only, hence its lower-level `createRateLimit`.
 */
export function rateLimitHook(app: FastifyInstance, rules: readonly RateLimitRule[]) {
  const limiters = rules.map((rule) =>
    app.createRateLimit({ max: rule.max, timeWindow: rule.windowMs, keyGenerator: (request) => `${rule.name}:${rule.key(request)}` }),
  );
  return async (request: FastifyRequest): Promise<void> => {
    for (const limiter of limiters) {
      const result = await limiter(request);
      if (!result.isAllowed && result.isExceeded) throw new TooManyRequests(result.ttlInSeconds);
    }
  };
}
