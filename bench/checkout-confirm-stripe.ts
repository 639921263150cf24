/**
 * Checkout confirm with the Stripe adapter against the local Stripe stand-in at 0 ms latency,
 * side by side with the same confirms on the sandbox processor, in one run (target: at least 85%
 * of the sandbox's throughput: the adapter adds no work of its own beyond Stripe's calls).
 *
 * One server process (a child) serves two apps on one database: an organization on the sandbox
 * processor and one on Stripe, each with a pool of open checkouts whose buyer details are filled
 * in. The parent runs the load and the stand-in (its request checks off: they would be Stripe's
 * own time, and the document is not needed), each confirm taking the next session and, for Stripe,
 * a confirmation token made beforehand.
 *
 *   node --import tsx bench/checkout-confirm-stripe.ts   (BENCH_SECONDS per round, default 5; BENCH_ROUNDS, default 3; BENCH_SESSIONS per processor, default 3000)
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { migrateToLatest } from "../src/db/migrate.ts";
import { createOrganizationService } from "../src/modules/organizations/organizations.service.ts";
import { buildServices } from "../src/services.ts";
import { startStripeStandIn } from "../test/helpers/stripe-stand-in/stand-in.ts";
import { benchDatabase } from "./bench-database.ts";
import { announceReady, compareInterleaved, withServerProcess } from "./harness.ts";

const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 5), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const SESSIONS = Math.min(Number(process.env.BENCH_SESSIONS ?? 3000), 50_000);
const CONNECTIONS = 10;
const POOL_SIZE = 10;

type Ready = { sandbox: { port: number; secrets: string[] }; stripe: { port: number; secrets: string[] } };
const BUYER = {
  customer_email: "bench@example.com",
  customer_name: "Bench Buyer",
  customer_billing_address: { country: "US" as const, line1: "1 Main St", city: "New York", postal_code: "10001", state: "US-NY" },
};

/** Child: the two apps, each with its organization, product and open sessions, listening. */
async function serve(): Promise<void> {
  const database = await benchDatabase("bench-confirm");
  const connection = connect(database.url, POOL_SIZE * 2);
  await migrateToLatest(connection.db, connection.pool);
  const secret = randomBytes(32).toString("hex");
  const base = { NODE_ENV: "production", LOG_LEVEL: "silent", ENVIRONMENT: "sandbox", SECRET_KEY: secret };
  const stripeEnv = {
    PAYMENT_PROCESSOR: "stripe",
    STRIPE_SECRET_KEY: process.env.BENCH_STRIPE_SECRET_KEY!,
    STRIPE_PUBLISHABLE_KEY: process.env.BENCH_STRIPE_PUBLISHABLE_KEY!,
    STRIPE_WEBHOOK_SECRET: process.env.BENCH_STRIPE_WEBHOOK_SECRET!,
    STRIPE_API_URL: process.env.BENCH_STRIPE_API_URL!,
  };
  const owner = { kind: "user", tokenId: "bench", scopes: "all" } as const;
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  const ready: Partial<Ready> = {};
  for (const [name, env] of [
    ["sandbox", base],
    ["stripe", { ...base, ...stripeEnv }],
  ] as const) {
    const deps = { db: connection.db, readDb: connection.db, config: loadConfig(env), secret, now: () => new Date() };
    const org = await createOrganizationService(deps).create({ name: `Bench ${name}`, slug: `bench-${name}-${database.name}` });
    const services = buildServices(deps);
    const product = await services.products.create(owner, {
      organization_id: org.id,
      name: "Product",
      description: null,
      prices: [{ amount_type: "fixed", price_amount: 2500, price_currency: "usd" }],
    });
    const secrets: string[] = [];
    for (let i = 0; i < SESSIONS; i += 1) {
      const checkout = await services.checkouts.create({ products: [product.id], ...BUYER }, [org.id]);
      secrets.push(checkout.client_secret);
    }
    const app = await buildApp(deps, { logger: false, services });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (!address || typeof address === "string") throw new Error("no port");
    ready[name] = { port: address.port, secrets };
    apps.push(app);
  }
  announceReady(ready, async () => {
    for (const app of apps) await app.close();
    await connection.close();
    await database.stop();
  });
}

/** Confirms one session per request, in order, for `seconds`; `token` gives each its confirmation token. */
function confirmLoad(port: number, secrets: string[], token: () => string) {
  let next = 0;
  return (seconds: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => {
            const secret = secrets[next++];
            if (!secret) throw new Error("out of open sessions: raise BENCH_SESSIONS");
            return { ...request, path: `/v1/checkouts/client/${secret}/confirm`, body: JSON.stringify({ confirmation_token_id: token() }) };
          },
        },
      ],
    });
}

async function main(): Promise<void> {
  const standIn = await startStripeStandIn({ checkRequests: false });
  const url = new URL(standIn.url);
  const stripe = new Stripe(standIn.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
  Object.assign(process.env, {
    BENCH_STRIPE_SECRET_KEY: standIn.secretKey,
    BENCH_STRIPE_PUBLISHABLE_KEY: standIn.publishableKey,
    BENCH_STRIPE_WEBHOOK_SECRET: standIn.webhookSecret,
    BENCH_STRIPE_API_URL: standIn.url,
  });
  const tokens: string[] = [];
  for (let i = 0; i < SESSIONS; i += 1)
    tokens.push((await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" })).id);
  await withServerProcess<Ready>(import.meta.url, 600, async (ready) => {
    let nextToken = 0;
    const rounds = await compareInterleaved(
      { name: "sandbox", load: confirmLoad(ready.sandbox.port, ready.sandbox.secrets, () => "tok_visa") },
      { name: "stripe", load: confirmLoad(ready.stripe.port, ready.stripe.secrets, () => tokens[nextToken++]!) },
      { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, poolSize: POOL_SIZE, floor: 85 },
    );
    const failed = rounds.reduce((sum, round) => sum + round.subject.non2xx + round.baseline.non2xx, 0);
    if (failed > 0) console.log(`warning: ${failed} confirms did not answer 200`);
  });
  await standIn.close();
}

if (process.argv.includes("--serve")) await serve();
else await main();
