import type { FastifyInstance, FastifyRequest } from "fastify";
import rateLimit from "@fastify/rate-limit";
import { AppError } from "./errors.ts";

export class TooManyRequests extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, "TooManyRequests", "Rate limit exceeded, retry later.", { "retry-after": String(retryAfterSeconds) });
  }
}

export interface RateLimitRule {
  max: number;
  windowMs: number;
  /** The bucket a request counts against. */
  key: (request: FastifyRequest) => string;
}

/**
 * A preHandler (the body is parsed by then, so a rule may count by a body field) enforcing every
 * rule: the first exhausted one refuses with 429 and `Retry-After`. The plugin's own handler runs
 * one limit per request only, hence its lower-level `createRateLimit`.
 */
export async function rateLimitHook(app: FastifyInstance, rules: readonly RateLimitRule[]) {
  if (!app.hasDecorator("createRateLimit")) await app.register(rateLimit, { global: false });
  const limiters = rules.map((rule, index) =>
    app.createRateLimit({ max: rule.max, timeWindow: rule.windowMs, keyGenerator: (request) => `${index}:${rule.key(request)}` }),
  );
  return async (request: FastifyRequest): Promise<void> => {
    for (const limiter of limiters) {
      const result = await limiter(request);
      if (!result.isAllowed && result.isExceeded) throw new TooManyRequests(result.ttlInSeconds);
    }
  };
}
