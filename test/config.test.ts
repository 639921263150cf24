import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("configuration", () => {
  it("has working defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8000,
      databaseUrl: undefined,
      databaseReadUrl: undefined,
      rateLimitStore: "memory",
      bodyLimitBytes: 10 * 1024 * 1024,
      checkoutTtlSeconds: 86_400,
    });
    expect(config.publicBaseUrl).toBe("http://127.0.0.1:8000");
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ["PORT", "eighty", /PORT/],
    ["PORT", "70000", /PORT/],
    ["DATABASE_URL", "mysql://x", /DATABASE_URL/],
    ["ADMIN_TOKEN", "short", /ADMIN_TOKEN/],
    ["LOG_LEVEL", "loud", /LOG_LEVEL/],
    ["BODY_LIMIT_BYTES", "12", /BODY_LIMIT_BYTES/],
    ["PUBLIC_BASE_URL", "ftp://x", /PUBLIC_BASE_URL/],
    ["S3_PUBLIC_ENDPOINT", "localhost:9000", /S3_PUBLIC_ENDPOINT/],
    ["DATABASE_READ_URL", "mysql://x", /DATABASE_READ_URL/],
    // A replica of what? The embedded database has none.
    ["DATABASE_READ_URL", "postgres://replica/db", /DATABASE_READ_URL: requires DATABASE_URL/],
    ["RATE_LIMIT_STORE", "redis", /RATE_LIMIT_STORE/],
    ["TRUST_PROXY", "yes", /TRUST_PROXY: "yes" is no address/],
    ["TRUST_PROXY", "10.0.0.0/33", /TRUST_PROXY: "10.0.0.0\/33"/],
    ["TRUST_PROXY", "10.0.0.1,", /TRUST_PROXY: "" is no address/],
    ["TRUST_PROXY", "::1/129", /TRUST_PROXY/],
    ["TRUST_PROXY", "100", /TRUST_PROXY/],
  ])("fails fast naming %s for %j", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it("reads a replica beside the primary and the shared rate-limit store", () => {
    expect(
      loadConfig({ DATABASE_URL: "postgres://primary/db", DATABASE_READ_URL: "postgres://replica/db", RATE_LIMIT_STORE: "postgres" }),
    ).toMatchObject({ databaseUrl: "postgres://primary/db", databaseReadUrl: "postgres://replica/db", rateLimitStore: "postgres" });
  });

  it("reads whom to trust for the client address: nobody by default, everybody, a hop count, or addresses and ranges", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/8,fd00::/8 ,192.168.1.7" }).trustProxy).toEqual([
      "loopback",
      "10.0.0.0/8",
      "fd00::/8",
      "192.168.1.7",
    ]);
  });

  it("treats empty values as unset", () => {
    // docker-compose passes `ADMIN_TOKEN: ${ADMIN_TOKEN:-}`: empty when the host has none.
    expect(loadConfig({ PORT: "", DATABASE_URL: "", ADMIN_TOKEN: "" })).toMatchObject({
      port: 8000,
      databaseUrl: undefined,
      adminToken: undefined,
    });
  });

  it("reads the S3 storage settings, with the public endpoint links are signed for", () => {
    const { storage } = loadConfig({
      STORAGE_DRIVER: "s3",
      S3_BUCKET: "docs",
      S3_ENDPOINT: "http://storage:9000",
      S3_PUBLIC_ENDPOINT: "http://localhost:9000",
    });
    expect(storage).toMatchObject({
      driver: "s3",
      bucket: "docs",
      endpoint: "http://storage:9000",
      publicEndpoint: "http://localhost:9000",
    });
  });
});
