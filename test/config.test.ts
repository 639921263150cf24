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
    ["WEBHOOK_DISABLE_AFTER", "3 days", /WEBHOOK_DISABLE_AFTER: expected an ISO 8601 duration/],
    ["WEBHOOK_DISABLE_AFTER", "P1M", /WEBHOOK_DISABLE_AFTER/],
    ["WEBHOOK_DISABLE_AFTER", "PT0S", /WEBHOOK_DISABLE_AFTER/],
    ["WEBHOOK_SECRET_OVERLAP", "1 day", /WEBHOOK_SECRET_OVERLAP: expected an ISO 8601 duration/],
  ])("fails fast naming %s for %j", (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it("reads how long an endpoint may fail before it is disabled: three days unless WEBHOOK_DISABLE_AFTER says", () => {
    expect(loadConfig({}).webhookDisableAfterMs).toBe(3 * 86_400_000);
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER: "PT12H" }).webhookDisableAfterMs).toBe(12 * 3_600_000);
  });

  it("keeps a rotated webhook secret signing for 24 hours unless WEBHOOK_SECRET_OVERLAP says", () => {
    expect(loadConfig({}).webhookSecretOverlapMs).toBe(86_400_000);
    expect(loadConfig({ WEBHOOK_SECRET_OVERLAP: "PT1H" }).webhookSecretOverlapMs).toBe(3_600_000);
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

describe("payment processor configuration", () => {
  const testKeys = {
    PAYMENT_PROCESSOR: "stripe",
    STRIPE_SECRET_KEY: "sk_test_51Secret0000000000",
    STRIPE_PUBLISHABLE_KEY: "pk_test_51Public0000000000",
    STRIPE_WEBHOOK_SECRET: "whsec_abcdefABCDEF0123",
  };
  const liveKeys = { ...testKeys, STRIPE_SECRET_KEY: "sk_live_51Secret0000000000", STRIPE_PUBLISHABLE_KEY: "pk_live_51Public0000000000" };

  it("runs the sandbox processor in a sandbox and none in production unless Stripe is configured", () => {
    expect(loadConfig({}).payments).toEqual({ processor: "sandbox" });
    expect(loadConfig({ ENVIRONMENT: "production" }).payments).toEqual({ processor: "none" });
  });

  it("reads Stripe's keys and points the SDK at STRIPE_API_URL (Stripe's own by default)", () => {
    const sandbox = loadConfig(testKeys).payments;
    expect(sandbox.processor === "stripe" && sandbox.stripe.apiUrl.href).toBe("https://api.stripe.com/");
    expect(sandbox.processor === "stripe" && sandbox.stripe.jsUrl).toBe("https://js.stripe.com/v3/");
    const proxied = loadConfig({ ...testKeys, STRIPE_API_URL: "http://127.0.0.1:12111" }).payments;
    expect(proxied.processor === "stripe" && [proxied.stripe.apiUrl.hostname, proxied.stripe.apiUrl.port]).toEqual(["127.0.0.1", "12111"]);
    expect(loadConfig({ ...liveKeys, ENVIRONMENT: "production" }).payments.processor).toBe("stripe");
  });

  it.each([
    [
      { ENVIRONMENT: "production", ...testKeys },
      /^Invalid environment variable STRIPE_SECRET_KEY: ENVIRONMENT=production takes Stripe live-mode keys only$/,
    ],
    [{ ...liveKeys }, /^Invalid environment variable STRIPE_SECRET_KEY: ENVIRONMENT=sandbox takes Stripe test-mode keys only$/],
    [{ ...testKeys, STRIPE_PUBLISHABLE_KEY: "pk_live_x" }, /STRIPE_PUBLISHABLE_KEY: ENVIRONMENT=sandbox takes Stripe test-mode keys only/],
    [{ ENVIRONMENT: "production", PAYMENT_PROCESSOR: "sandbox" }, /PAYMENT_PROCESSOR: sandbox is refused when ENVIRONMENT=production/],
    [{ ...testKeys, STRIPE_WEBHOOK_SECRET: "" }, /STRIPE_WEBHOOK_SECRET: required when PAYMENT_PROCESSOR=stripe/],
    [{ ...testKeys, STRIPE_SECRET_KEY: undefined }, /STRIPE_SECRET_KEY: required when PAYMENT_PROCESSOR=stripe/],
    [{ ...testKeys, PAYMENT_PROCESSOR: "paypal" }, /PAYMENT_PROCESSOR/],
    [{ ...testKeys, STRIPE_API_URL: "api.stripe.com" }, /STRIPE_API_URL/],
    [{ ...testKeys, STRIPE_API_URL: "http://127.0.0.1:12111/v1" }, /STRIPE_API_URL/],
  ])("refuses to start with a one-line error naming the variable (%#)", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });

  it("never echoes a secret in its error", () => {
    for (const [name, value] of [
      ["STRIPE_SECRET_KEY", "sk_test_bad key with spaces"],
      ["STRIPE_WEBHOOK_SECRET", "whsec_bad secret"],
      ["SECRET_KEY", "short-secret"],
    ]) {
      let message = "";
      try {
        loadConfig({ ...testKeys, [name!]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(name);
      expect(message).not.toContain("secret with");
      expect(message).not.toContain(value!.slice(6));
    }
  });
  it("reads the SMTP server and the sender; without SMTP_URL emails are kept", () => {
    expect(loadConfig({}).email).toEqual({ smtp: null, from: { name: null, address: "no-reply@localhost" } });
    expect(loadConfig({ PUBLIC_BASE_URL: "https://api.shop.example" }).email.from.address).toBe("no-reply@api.shop.example");
    const config = loadConfig({
      SMTP_URL: "smtps://mailer:p%40ss%3Aword@mail.example:2465",
      EMAIL_FROM: '"Shop, Inc." <billing@shop.example>',
    });
    expect(config.email).toEqual({
      smtp: { host: "mail.example", port: 2465, secure: true, auth: { user: "mailer", pass: "p@ss:word" } },
      from: { name: "Shop, Inc.", address: "billing@shop.example" },
    });
    expect(loadConfig({ SMTP_URL: "smtp://127.0.0.1", EMAIL_FROM: "Shop <a@b.example>" }).email).toEqual({
      smtp: { host: "127.0.0.1", port: 587, secure: false, auth: null },
      from: { name: "Shop", address: "a@b.example" },
    });
  });

  it.each([
    ["SMTP_URL", "mail.example:25"],
    ["SMTP_URL", "http://mail.example"],
    ["SMTP_URL", "smtp://user:pw@mail.example/path"],
    ["SMTP_URL", "smtp://user:%E0%A4%A@mail.example"],
    ["SMTP_URL", "smtp://mail.example:99999"],
    ["EMAIL_FROM", "not an address"],
    ["EMAIL_FROM", "Shop <shop.example>"],
    ["EMAIL_FROM", "a@b.example\r\nBcc: x@y.example"],
  ])("refuses %s=%j at start, naming it on one line", (name, value) => {
    const env = { [name]: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid environment variable ${name}: [^\\n]+$`));
  });

  it("never echoes the SMTP password", () => {
    for (const value of [
      "smtp://mailer:hunter2-secret@mail.example/x",
      "ftp://mailer:hunter2-secret@mail.example",
      "smtp://mailer:hunter2-secret@mail.example:70000",
    ]) {
      let message = "";
      try {
        loadConfig({ SMTP_URL: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("SMTP_URL");
      expect(message).not.toContain("hunter2");
    }
  });
});
