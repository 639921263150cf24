import type { FastifyRequest } from "fastify";
import type { Config } from "../../config.ts";
import type { RateLimitRule } from "../../http/rate-limit.ts";

/** The email a sign-in request names, lowercased: its bucket whatever the case it is typed in. */
const emailOf = (request: FastifyRequest): string => {
  const email = (request.body as { email?: unknown } | null)?.email;
  return typeof email === "string" ? email.trim().toLowerCase() : "";
};

/**
 * The sign-in limits: per client address (asking for codes, and entering them, each counted apart)
 * and per email asked for. `scope` names the buckets of one surface (the API, the portal page).
 */
export function signInRateLimits(config: Config, scope: string): { request: RateLimitRule[]; authenticate: RateLimitRule[] } {
  const { perClient, perEmail, windowMs } = config.portalSignInRateLimit;
  const client = (step: string): RateLimitRule => ({
    name: `${scope}-sign-in-${step}-client`,
    max: perClient,
    windowMs,
    key: (request) => request.ip,
  });
  return {
    request: [client("request"), { name: `${scope}-sign-in-email`, max: perEmail, windowMs, key: emailOf }],
    authenticate: [client("authenticate")],
  };
}

/**
 * The email change's limit: its three routes share one bucket per client address, with the
 * sign-in's per-client allowance (docs/decisions.md).
 */
export function emailUpdateRateLimits(config: Config): RateLimitRule[] {
  const { perClient, windowMs } = config.portalSignInRateLimit;
  return [{ name: "api-email-update-client", max: perClient, windowMs, key: (request) => request.ip }];
}
