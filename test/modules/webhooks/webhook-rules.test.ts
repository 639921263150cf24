import { describe, expect, it } from "vitest";
import { JITTER, MAX_ATTEMPTS, RETRY_SCHEDULE_MS, nextAttemptAt, parseRetryAfter } from "../../../src/modules/webhooks/webhook-backoff.ts";
import { generateWebhookSecret, openWebhookSecret, sealWebhookSecret } from "../../../src/modules/webhooks/webhook-secrets.ts";
import { addressProblem, guardedLookup, urlProblem } from "../../../src/http/outbound-url-policy.ts";

const production = { allowInsecureLocalhost: false, allowPrivateNetworks: false };
const development = { allowInsecureLocalhost: true, allowPrivateNetworks: false };
const intranet = { allowInsecureLocalhost: false, allowPrivateNetworks: true };

describe("webhook URL policy", () => {
  it.each([
    ["https://hooks.example.com/x", production, null],
    ["https://93.184.216.34/x", production, null],
    ["https://[2606:2800:220:1:248:1893:25c8:1946]/x", production, null],
    ["http://hooks.example.com/x", production, "The URL must use https."],
    ["http://hooks.example.com/x", development, "The URL must use https."],
    ["http://127.0.0.1:8080/x", development, null],
    ["http://[::1]:8080/x", development, null],
    ["http://localhost:8080/x", development, null],
    ["http://api.localhost/x", development, null],
    ["http://127.0.0.1:8080/x", production, "The URL must use https."],
    ["https://127.0.0.1/x", production, "127.0.0.1 is a loopback address"],
    ["https://localhost/x", production, "localhost is a loopback address"],
    ["https://10.0.0.8/x", production, "10.0.0.8 is a private or link-local address"],
    ["https://172.20.1.1/x", development, "172.20.1.1 is a private or link-local address"],
    ["https://192.168.0.1/x", production, "192.168.0.1 is a private or link-local address"],
    ["https://100.64.0.1/x", production, "100.64.0.1 is a private or link-local address"],
    ["https://169.254.169.254/x", production, "169.254.169.254 is a private or link-local address"],
    ["https://[fe80::1]/x", production, "fe80::1 is a private or link-local address"],
    ["https://[::ffff:10.0.0.1]/x", production, "::ffff:a00:1 is a private or link-local address"],
    ["https://10.0.0.8/x", intranet, null],
    ["https://0.0.0.0/x", intranet, "0.0.0.0 is not a routable address"],
    ["https://224.0.0.1/x", intranet, "224.0.0.1 is not a routable address"],
    ["gopher://hooks.example.com/", development, "The URL must use https."],
    ["not a url", development, "The URL is not valid."],
  ] as const)("%s → %s", (url, policy, expected) => {
    expect(urlProblem(url, policy)).toBe(expected);
  });

  it("checks resolved addresses too: a name resolving to loopback is refused unless allowed", async () => {
    const lookup = (policy: typeof production) =>
      new Promise<string>((resolve) =>
        guardedLookup(policy)("localhost", { all: false }, (error, address) =>
          resolve(error ? error.message : typeof address === "string" ? address : address.map((a) => a.address).join(",")),
        ),
      );
    expect(await lookup(production)).toMatch(/^localhost resolves to a refused address: (127\.0\.0\.1|::1) is a loopback address$/);
    expect(await lookup(development)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });

  it("classifies IPv4-mapped IPv6 addresses by their IPv4 address", () => {
    expect(addressProblem("::ffff:127.0.0.1", production)).toBe("::ffff:127.0.0.1 is a loopback address");
    expect(addressProblem("::ffff:8.8.8.8", production)).toBeNull();
  });
});

describe("retry schedule", () => {
  const now = new Date("2026-11-22T00:00:00Z");
  it("follows the Standard Webhooks schedule over about three days, ten attempts in all", () => {
    expect(MAX_ATTEMPTS).toBe(10);
    const total = RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0);
    expect(total / 3_600_000).toBeCloseTo(75.6, 1);
    expect(RETRY_SCHEDULE_MS.map((_, i) => nextAttemptAt(i + 1, now, null, () => 0.5)!.getTime() - now.getTime())).toEqual([
      ...RETRY_SCHEDULE_MS,
    ]);
    expect(nextAttemptAt(10, now, null)).toBeNull();
  });

  it("jitters each delay within ±20 %", () => {
    expect(JITTER).toBe(0.2);
    expect(nextAttemptAt(2, now, null, () => 0)!.getTime() - now.getTime()).toBe(240_000);
    expect(nextAttemptAt(2, now, null, () => 0.999999)!.getTime() - now.getTime()).toBe(360_000);
  });

  it("never retries sooner than Retry-After, and never later than a day for it", () => {
    expect(nextAttemptAt(1, now, 60_000, () => 0.5)!.getTime() - now.getTime()).toBe(60_000);
    expect(nextAttemptAt(3, now, 60_000, () => 0.5)!.getTime() - now.getTime()).toBe(1_800_000);
    expect(nextAttemptAt(1, now, 30 * 86_400_000, () => 0.5)!.getTime() - now.getTime()).toBe(86_400_000);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 00:10:00 GMT", now)).toBe(600_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 00:10:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe("endpoint secrets", () => {
  it("round-trips through the seal only with the same server secret", () => {
    const secret = generateWebhookSecret();
    const sealed = sealWebhookSecret("server-secret-a", secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(openWebhookSecret("server-secret-a", sealed)).toBe(secret);
    expect(() => openWebhookSecret("server-secret-b", sealed)).toThrow();
  });
});
