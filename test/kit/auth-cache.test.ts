import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/http/auth.ts";
import { cachePrincipals } from "../../src/http/auth-cache.ts";
import { testClock } from "../helpers/context.ts";

const principal: Principal = { kind: "organization", tokenId: "t", organizationId: "o", scopes: new Set(["checkouts:read"]) };

describe("cachePrincipals", () => {
  it("reuses a principal within the TTL, looks it up again after, and never caches unknown tokens", async () => {
    const clock = testClock();
    const lookups: string[] = [];
    let live = true;
    const authenticate = cachePrincipals(
      async (token) => {
        lookups.push(token);
        return live && token === "good" ? principal : null;
      },
      { ttlMs: 2000, maxEntries: 2, now: clock.now },
    );
    expect(await authenticate("good")).toBe(principal);
    expect(await authenticate("good")).toBe(principal);
    expect(await authenticate("bad")).toBeNull();
    expect(await authenticate("bad")).toBeNull();
    expect(lookups).toEqual(["good", "bad", "bad"]);
    live = false;
    clock.advance(1999);
    expect(await authenticate("good")).toBe(principal);
    clock.advance(1);
    expect(await authenticate("good")).toBeNull();
  });

  it("is a pass-through with a TTL of 0", async () => {
    let calls = 0;
    const authenticate = cachePrincipals(async () => ((calls += 1), principal), { ttlMs: 0, maxEntries: 10, now: () => new Date() });
    await authenticate("a");
    await authenticate("a");
    expect(calls).toBe(2);
  });
});
