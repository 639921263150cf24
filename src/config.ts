import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import path from "node:path";
import { isIP } from "node:net";
import { ConfigError } from "./config-error.ts";
import { paymentsOf, type PaymentsConfig } from "./payments-config.ts";
import { emailOf, type EmailConfig } from "./email-config.ts";
import { durationToMilliseconds } from "./values/duration.ts";

/**
 * The environment, read and validated once at start. Nothing else reads `process.env`.
 * Every variable is documented in `.env.example`.
 */
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Bool = Type.Union([Type.Literal("true"), Type.Literal("false"), Type.Literal("1"), Type.Literal("0")]);

const EnvSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal("development"), Type.Literal("production"), Type.Literal("test")], { default: "development" }),
  ENVIRONMENT: Type.Union([Type.Literal("sandbox"), Type.Literal("production")], { default: "sandbox" }),
  HOST: Type.String({ minLength: 1, default: "127.0.0.1" }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://[^\\s]+[^/]$" })),
  CHECKOUT_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://[^\\s]+[^/]$" })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  DATABASE_READ_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 5_000 }),
  EMBEDDED_POSTGRES_PORT: Type.Optional(Port),
  DATA_DIR: Type.String({ minLength: 1, default: "./.data" }),
  ADMIN_TOKEN: Type.Optional(Type.String({ pattern: "^polar_pat_[A-Za-z0-9]{32,}$" })),
  SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, pattern: "^[\\x21-\\x7e]+$" })),
  METRICS_PORT: Type.Optional(Port),
  LOG_LEVEL: Type.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
    { default: "info" },
  ),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 10 * 1024 * 1024 }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 72_000 }),
  CHECKOUT_TTL_SECONDS: Type.Integer({ minimum: 60, default: 86_400 }),
  CUSTOMER_SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, default: 3_600 }),
  WORKER_ENABLED: Type.Optional(Bool),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
  // Longer than one webhook delivery (10 s timeout plus its run budget), so a shutdown never cuts one off.
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 15_000 }),
  STORAGE_DRIVER: Type.Union([Type.Literal("local"), Type.Literal("s3")], { default: "local" }),
  DOWNLOAD_URL_TTL_SECONDS: Type.Integer({ minimum: 1, maximum: 604_800, default: 600 }),
  S3_BUCKET: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
  S3_REGION: Type.String({ minLength: 1, default: "us-east-1" }),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: "^https?://" })),
  S3_PUBLIC_ENDPOINT: Type.Optional(Type.String({ pattern: "^https?://" })),
  S3_FORCE_PATH_STYLE: Type.Optional(Bool),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  AUTH_CACHE_MS: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  WEBHOOK_ALLOW_INSECURE_LOCALHOST: Type.Optional(Bool),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Optional(Bool),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  WEBHOOK_DISABLE_AFTER: Type.String({ maxLength: 64, default: "P3D" }),
  WEBHOOK_SECRET_OVERLAP: Type.String({ maxLength: 64, default: "PT24H" }),
  LICENSE_KEY_RATE_LIMIT_PER_ADDRESS: Type.Integer({ minimum: 1, default: 180 }),
  LICENSE_KEY_RATE_LIMIT_PER_KEY: Type.Integer({ minimum: 1, default: 60 }),
  LICENSE_KEY_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1, default: 60_000 }),
  PORTAL_SIGN_IN_RATE_LIMIT_PER_CLIENT: Type.Integer({ minimum: 1, default: 12 }),
  PORTAL_SIGN_IN_RATE_LIMIT_PER_EMAIL: Type.Integer({ minimum: 1, default: 5 }),
  PORTAL_SIGN_IN_RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1, default: 900_000 }),
  RATE_LIMIT_STORE: Type.Union([Type.Literal("memory"), Type.Literal("postgres")], { default: "memory" }),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  PAYMENT_PROCESSOR: Type.Optional(Type.Union([Type.Literal("sandbox"), Type.Literal("stripe")])),
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: "^(sk|rk)_(test|live)_[A-Za-z0-9_]+$" })),
  STRIPE_PUBLISHABLE_KEY: Type.Optional(Type.String({ pattern: "^pk_(test|live)_[A-Za-z0-9_]+$" })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: "^whsec_[A-Za-z0-9+/=_-]+$" })),
  STRIPE_API_URL: Type.String({ pattern: "^https?://[^\\s/]+(:[0-9]{1,5})?/?$", default: "https://api.stripe.com" }),
  STRIPE_JS_URL: Type.String({ pattern: "^https?://[^\\s]+$", default: "https://js.stripe.com/v3/" }),
  SMTP_URL: Type.Optional(Type.String({ maxLength: 2048 })),
  EMAIL_FROM: Type.Optional(Type.String({ maxLength: 320 })),
});
type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly env: Env["NODE_ENV"];
  /**
   * What this deployment is, as the interface's two base addresses imply: `sandbox` settles
   * payments with the sandbox processor and offers the test clock; `production` does neither.
   */
  readonly environment: Env["ENVIRONMENT"];
  readonly host: string;
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly checkoutBaseUrl: string;
  readonly databaseUrl: string | undefined;
  /** A streaming replica for the reads that tolerate its lag (docs/scaling.md, "A read replica"); unset: the primary. */
  readonly databaseReadUrl: string | undefined;
  readonly databasePoolSize: number;
  /** How long a request waits for a database connection before answering 503 (0: forever). */
  readonly databaseConnectTimeoutMs: number;
  readonly embeddedPostgresPort: number | undefined;
  readonly dataDir: string;
  readonly adminToken: string | undefined;
  readonly secretKey: string | undefined;
  readonly logLevel: string;
  /**
   * Prometheus's `/metrics`: on a port of its own (no credential: bind it where only the scraper
   * reaches), or on the API port behind a bearer token; not served when neither is set.
   */
  readonly metrics: { readonly port: number } | { readonly token: string } | null;
  readonly bodyLimitBytes: number;
  /** Node's HTTP server timeouts (see README, Configuration). */
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number };
  readonly checkoutTtlSeconds: number;
  readonly customerSessionTtlSeconds: number;
  readonly workerEnabled: boolean;
  readonly workerConcurrency: number;
  readonly shutdownTimeoutMs: number;
  readonly storage: StorageConfig;
  readonly authCacheMs: number;
  /** `http://` webhook URLs to loopback addresses (and loopback at all) are accepted. */
  readonly webhookAllowInsecureLocalhost: boolean;
  /** Webhook URLs may point to private, link-local and unique-local addresses. */
  readonly webhookAllowPrivateNetworks: boolean;
  readonly webhookTimeoutMs: number;
  /** How long every delivery to an endpoint may fail before the endpoint is disabled (`WEBHOOK_DISABLE_AFTER`). */
  readonly webhookDisableAfterMs: number;
  /** How long a rotated endpoint secret keeps signing beside the new one (`WEBHOOK_SECRET_OVERLAP`). */
  readonly webhookSecretOverlapMs: number;
  /** Public license-key routes: requests per window from one client address, and for one key. */
  readonly licenseKeyRateLimit: { readonly perAddress: number; readonly perKey: number; readonly windowMs: number };
  /** Portal sign-in by email code: requests per window from one client address (both routes), and codes asked for one email. */
  readonly portalSignInRateLimit: { readonly perClient: number; readonly perEmail: number; readonly windowMs: number };
  /** Where rate-limit counters live: this process's memory, or PostgreSQL, shared by every process. */
  readonly rateLimitStore: Env["RATE_LIMIT_STORE"];
  /**
   * Which peers' `X-Forwarded-For` names the client (Fastify's `trustProxy`): none (false), every
   * peer (true), the last N hops, or the listed addresses and ranges.
   */
  readonly trustProxy: TrustProxy;
  /** Who moves the money: the sandbox processor, Stripe, or (a production deployment without Stripe) nobody. */
  readonly payments: PaymentsConfig;
  /** Where emails go (`SMTP_URL`; none: kept in the database) and who they come from (`EMAIL_FROM`). */
  readonly email: EmailConfig;
}

export type TrustProxy = boolean | number | readonly string[];

/** proxy-addr's names for the private ranges, which Fastify's `trustProxy` also takes. */
const NAMED_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** `TRUST_PROXY`: true/false, a hop count, or a comma-separated list of addresses, CIDR ranges and named ranges. */
function trustProxyOf(value: string | undefined): TrustProxy {
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true") return true;
  if (/^[1-9][0-9]?$/.test(value)) return Number(value);
  const entries = value.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split("/");
    const family = isIP(address ?? "");
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!NAMED_RANGES.has(entry) && (family === 0 || !prefixOk || rest.length > 0))
      throw new ConfigError(
        `Invalid environment variable TRUST_PROXY: ${JSON.stringify(entry)} is no address, CIDR range or named range (loopback, linklocal, uniquelocal)`,
      );
  }
  return Object.freeze(entries);
}

export type StorageConfig =
  | { readonly driver: "local"; readonly downloadUrlTtlSeconds: number }
  | {
      readonly driver: "s3";
      readonly downloadUrlTtlSeconds: number;
      readonly bucket: string;
      readonly region: string;
      readonly endpoint: string | undefined;
      readonly publicEndpoint: string | undefined;
      readonly forcePathStyle: boolean;
      readonly accessKeyId: string | undefined;
      readonly secretAccessKey: string | undefined;
    };

export { ConfigError };

const flag = (value: Static<typeof Bool> | undefined, fallback: boolean): boolean =>
  value === undefined ? fallback : value === "true" || value === "1";

function durationOf(name: string, value: string): number {
  const ms = durationToMilliseconds(value);
  if (ms === null) {
    throw new ConfigError(
      `Invalid environment variable ${name}: expected an ISO 8601 duration in weeks, days, hours, minutes or seconds, such as P3D or PT12H (got ${JSON.stringify(value)})`,
    );
  }
  return ms;
}

const KNOWN_KEYS = Object.keys(EnvSchema.properties) as (keyof Env)[];
/** Never echoed in an error message: the message goes to the logs. */
const SECRET_KEYS = new Set<string>(["SECRET_KEY", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "SMTP_URL", "METRICS_TOKEN"]);

/** Reads the variables this service knows; fails naming the first bad variable and why. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    const value = source[key];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, raw));
  const firstError = Value.Errors(EnvSchema, converted).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, "") || "environment";
    const got = SECRET_KEYS.has(name) ? "" : ` (got ${JSON.stringify(raw[name] ?? null)})`;
    throw new ConfigError(`Invalid environment variable ${name}: ${firstError.message}${got}`);
  }
  const env = converted as Env;
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError("Invalid environment variable HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS");
  }
  if (env.DATABASE_READ_URL && !env.DATABASE_URL) {
    throw new ConfigError("Invalid environment variable DATABASE_READ_URL: requires DATABASE_URL (a replica of that database)");
  }
  if (env.STORAGE_DRIVER === "s3" && !env.S3_BUCKET) {
    throw new ConfigError("Invalid environment variable S3_BUCKET: required when STORAGE_DRIVER=s3");
  }
  const webhookDisableAfterMs = durationOf("WEBHOOK_DISABLE_AFTER", env.WEBHOOK_DISABLE_AFTER);
  const webhookSecretOverlapMs = durationOf("WEBHOOK_SECRET_OVERLAP", env.WEBHOOK_SECRET_OVERLAP);
  const storage: StorageConfig =
    env.STORAGE_DRIVER === "s3"
      ? {
          driver: "s3",
          downloadUrlTtlSeconds: env.DOWNLOAD_URL_TTL_SECONDS,
          bucket: env.S3_BUCKET!,
          region: env.S3_REGION,
          endpoint: env.S3_ENDPOINT,
          publicEndpoint: env.S3_PUBLIC_ENDPOINT,
          forcePathStyle: env.S3_FORCE_PATH_STYLE === "true" || env.S3_FORCE_PATH_STYLE === "1",
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        }
      : { driver: "local", downloadUrlTtlSeconds: env.DOWNLOAD_URL_TTL_SECONDS };
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://${env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST}:${env.PORT}`;
  return Object.freeze({
    env: env.NODE_ENV,
    environment: env.ENVIRONMENT,
    host: env.HOST,
    port: env.PORT,
    publicBaseUrl,
    checkoutBaseUrl: env.CHECKOUT_BASE_URL ?? publicBaseUrl,
    databaseUrl: env.DATABASE_URL,
    databaseReadUrl: env.DATABASE_READ_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    embeddedPostgresPort: env.EMBEDDED_POSTGRES_PORT,
    dataDir: path.resolve(env.DATA_DIR),
    adminToken: env.ADMIN_TOKEN,
    secretKey: env.SECRET_KEY,
    logLevel: env.LOG_LEVEL,
    metrics:
      env.METRICS_PORT !== undefined
        ? Object.freeze({ port: env.METRICS_PORT })
        : env.METRICS_TOKEN
          ? Object.freeze({ token: env.METRICS_TOKEN })
          : null,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    httpTimeouts: Object.freeze({
      headersMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    }),
    checkoutTtlSeconds: env.CHECKOUT_TTL_SECONDS,
    customerSessionTtlSeconds: env.CUSTOMER_SESSION_TTL_SECONDS,
    workerEnabled: env.WORKER_ENABLED === undefined ? true : env.WORKER_ENABLED === "true" || env.WORKER_ENABLED === "1",
    workerConcurrency: env.WORKER_CONCURRENCY,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    storage: Object.freeze(storage),
    // Off under test by default: tests revoke and expire tokens and expect the next request to see it.
    authCacheMs: env.AUTH_CACHE_MS ?? (env.NODE_ENV === "test" ? 0 : 2_000),
    webhookAllowInsecureLocalhost: flag(env.WEBHOOK_ALLOW_INSECURE_LOCALHOST, env.NODE_ENV !== "production"),
    webhookAllowPrivateNetworks: flag(env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, false),
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    webhookDisableAfterMs,
    webhookSecretOverlapMs,
    licenseKeyRateLimit: Object.freeze({
      perAddress: env.LICENSE_KEY_RATE_LIMIT_PER_ADDRESS,
      perKey: env.LICENSE_KEY_RATE_LIMIT_PER_KEY,
      windowMs: env.LICENSE_KEY_RATE_LIMIT_WINDOW_MS,
    }),
    portalSignInRateLimit: Object.freeze({
      perClient: env.PORTAL_SIGN_IN_RATE_LIMIT_PER_CLIENT,
      perEmail: env.PORTAL_SIGN_IN_RATE_LIMIT_PER_EMAIL,
      windowMs: env.PORTAL_SIGN_IN_RATE_LIMIT_WINDOW_MS,
    }),
    rateLimitStore: env.RATE_LIMIT_STORE,
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    payments: Object.freeze(paymentsOf(env)),
    email: Object.freeze(emailOf(env, publicBaseUrl)),
  });
}
