import type { Principal, TokenAuthenticator } from "./auth.ts";

export interface PrincipalCacheOptions {
  /** How long a resolved principal is reused; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  now: () => Date;
}

/**
 * Reuses a token's principal for a few seconds instead of querying the token store on every
 * request. A revoked or expired token therefore keeps working for at most `ttlMs`
 * (docs/decisions.md, "Principal cache"). Unknown tokens are never cached.
 */
export function cachePrincipals(authenticate: TokenAuthenticator, options: PrincipalCacheOptions): TokenAuthenticator {
  if (options.ttlMs <= 0) return authenticate;
  const entries = new Map<string, { principal: Principal; until: number }>();
  return async (token) => {
    const now = options.now().getTime();
    const hit = entries.get(token);
    if (hit && hit.until > now) return hit.principal;
    if (hit) entries.delete(token);
    const principal = await authenticate(token);
    if (principal) {
      // Oldest first out: Map iteration order is insertion order.
      if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(token, { principal, until: now + options.ttlMs });
    }
    return principal;
  };
}
