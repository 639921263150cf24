import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.ts";
import { loadConfig, type Config } from "../../src/config.ts";
import { organizationClock } from "../../src/values/clock.ts";
import type { Deps } from "../../src/context.ts";
import { createAccessTokenService } from "../../src/modules/organizations/access-tokens.service.ts";
import { buildServices, type Adapters, type Services } from "../../src/services.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

export interface TestClock {
  now: () => Date;
  set: (date: Date) => void;
  advance: (ms: number) => void;
}

export function testClock(start = new Date()): TestClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = date.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface TestContext {
  readonly app: FastifyInstance;
  readonly database: TestDatabase;
  readonly deps: Deps;
  /** The app's own service instances, for tests that run its background tasks. */
  readonly services: Services;
  readonly clock: TestClock;
  /** The instance owner's personal access token. */
  readonly ownerToken: string;
  request: (options: InjectOptions & { token?: string | null }) => Promise<LightMyRequestResponse>;
  close: () => Promise<void>;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", CHECKOUT_BASE_URL: "https://checkout.test", ...overrides });
}

/**
 * A real database of its own, the real app on it, and an owner token; `close` drops it all.
 * `adapters` replaces the configured ones (a processor answering as the test needs).
 */
export async function createTestContext(
  options: { env?: Record<string, string>; adapters?: Partial<Adapters> } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  const clock = testClock();
  const deps: Deps = {
    db: database.db,
    readDb: database.db,
    config: testConfig(options.env),
    secret: randomBytes(32).toString("hex"),
    now: organizationClock(clock.now),
  };
  const owner = await createAccessTokenService(deps).ensureOwnerToken(undefined);
  if (!owner.generated) throw new Error("a fresh database has no owner token yet");
  const services = buildServices(deps, options.adapters);
  const app = await buildApp(deps, { logger: false, services });
  await app.ready();
  // Building the app compiles every route's schemas; start the clock once that is done, so that
  // rows stamped by the database's now() and times from this clock agree to within a test's work.
  clock.set(new Date());
  const ownerToken = owner.generated;
  return {
    app,
    database,
    deps,
    services,
    clock,
    ownerToken,
    request: ({ token, headers, ...rest }) =>
      app.inject({ ...rest, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } }),
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

/** The app listening on a free local port, for real HTTP clients (SDKs, fetch); its base URL. */
export async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
}
