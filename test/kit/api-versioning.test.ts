import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";

let ctx: TestContext;
let baseUrl: string;
beforeAll(async () => {
  ctx = await createTestContext();
  baseUrl = await listen(ctx);
});
afterAll(() => ctx.close());

/** A real HTTP request: what a browser or an SDK sees, headers as the socket carries them. */
const send = (path: string, init: RequestInit = {}) => fetch(`${baseUrl}${path}`, init);
const version = (value: string): Record<string, string> => ({ "polar-version": value });

describe("the Polar-Version header", () => {
  it("defaults to 2026-04 when missing or empty, and echoes it", async () => {
    for (const headers of [{}, version("")]) {
      const response = await send("/healthz", { headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("polar-version")).toBe("2026-04");
    }
  });

  it("accepts 2026-04 and 2026-10 and echoes the one asked for", async () => {
    for (const value of ["2026-04", "2026-10"]) {
      const response = await send("/v1/orders/", { headers: { ...version(value), authorization: `Bearer ${ctx.ownerToken}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("polar-version")).toBe(value);
    }
  });

  it("echoes the version on errors too: 401, 404, 422", async () => {
    const cases: [string, RequestInit, number][] = [
      ["/v1/orders/", { headers: version("2026-10") }, 401],
      ["/v1/nowhere", { headers: version("2026-10") }, 404],
      ["/v1/orders/?limit=0", { headers: { ...version("2026-10"), authorization: `Bearer ${ctx.ownerToken}` } }, 422],
    ];
    for (const [path, init, status] of cases) {
      const response = await send(path, init);
      expect(response.status, path).toBe(status);
      expect(response.headers.get("polar-version"), path).toBe("2026-10");
    }
  });

  it.each(["2026-4", "2025-01", "2026-13", "latest", " 2026-04x", "2026-04, 2026-10"])(
    "answers a bare 404 for %j, before authentication, CORS and routing",
    async (value) => {
      for (const [path, init] of [
        ["/healthz", {}],
        ["/v1/orders/", { headers: { authorization: "Bearer polar_oat_wrong", origin: "https://shop.example" } }],
        ["/v1/no-such-route", {}],
        ["/openapi.json", {}],
      ] as const) {
        const headers = { ...("headers" in init ? init.headers : {}), ...version(value) };
        const response = await send(path, { headers });
        expect(response.status, path).toBe(404);
        expect(await response.json()).toEqual({ detail: "Not Found" });
        expect(response.headers.get("polar-version")).toBeNull();
        expect(response.headers.get("access-control-allow-origin")).toBeNull();
      }
    },
  );

  it("is allowed and exposed by CORS", async () => {
    const preflight = await send("/v1/orders/", {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization,polar-version",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase().split(",")).toContain("polar-version");

    const response = await send("/v1/orders/", {
      headers: { origin: "https://shop.example", authorization: `Bearer ${ctx.ownerToken}`, ...version("2026-10") },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = response.headers.get("access-control-expose-headers")?.toLowerCase().split(/,\s*/);
    expect(exposed).toContain("polar-version");
    // A browser storefront can also tell a replayed POST (the Idempotency-Key section of the README).
    expect(exposed).toContain("idempotent-replayed");
  });

  it("is described in the OpenAPI document, served under each version's path too", async () => {
    const document = (await (await send("/openapi.json")).json()) as { info: Record<string, unknown> };
    expect(document.info["x-api-versions"]).toEqual({ header: "Polar-Version", supported: ["2026-04", "2026-10"], default: "2026-04" });
    for (const value of ["2026-04", "2026-10"]) expect(await (await send(`/${value}/openapi.json`)).json()).toEqual(document);
    expect((await send("/2025-01/openapi.json")).status).toBe(404);
  });
});
