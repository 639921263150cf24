/** One rate-limit bucket's fixed window, shared by every process (`RATE_LIMIT_STORE=postgres`). */
export interface RateLimitCountersTable {
  /** The rule's name and the bucket it counts: `license-key-address:<ip>`, `license-key-key:<organization>:<key>`. */
  key: string;
  /** Requests counted in the current window, the refused ones included. */
  count: number;
  window_ends_at: Date;
}
