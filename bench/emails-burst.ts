/**
 * A burst of order confirmations: 1,000 emails written to the outbox in one transaction (as a sale
 * at launch would write them, one per order), sent by the worker of the real server (`src/server.ts`:
 * API and worker in one process, as `npm start` runs it) to a local SMTP server. Reports emails per
 * second from the commit to the last message received, and GET /v1/checkouts/{id} throughput during
 * the burst against the same load without it, in interleaved rounds of one run.
 *
 *   npm run bench:emails-burst [-- emails-per-burst]   (BENCH_SECONDS per load, default 10; BENCH_ROUNDS, default 3)
 *
 * Uses DATABASE_URL's server (a fresh database on it) or an embedded PostgreSQL.
 */
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { AddressInfo } from "node:net";
import os, { cpus, totalmem } from "node:os";
import { SMTPServer } from "smtp-server";
import { loadConfig } from "../src/config.ts";
import { connect } from "../src/db/connection.ts";
import { recordEmail, renderOrderEmail } from "../src/modules/emails/emails.steps.ts";
import { buildServices } from "../src/services.ts";
import { benchDatabase } from "./bench-database.ts";
import { startServerProcess } from "./harness.ts";
import { seedProducts } from "./fixtures.ts";

const EMAILS = Number(process.argv[2] ?? 1_000);
const SECONDS = Math.min(Number(process.env.BENCH_SECONDS ?? 10), 60);
const ROUNDS = Math.min(Number(process.env.BENCH_ROUNDS ?? 3), 10);
const CONNECTIONS = 20;
const FLOOR_PERCENT = 80;

/** The local mail server: takes every message, counts them, keeps nothing. */
async function countingSmtpServer(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      stream.on("end", () => {
        received += 1;
        callback();
      });
      stream.resume();
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const database = await benchDatabase("bench-emails");
  const smtp = await countingSmtpServer();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "bench-emails-data-"));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SMTP_URL: smtp.url,
    SECRET_KEY: randomBytes(32).toString("hex"),
    EMAIL_FROM: "Shop <mail@shop.example>",
  };
  const server = await startServerProcess({ ...env, NODE_ENV: "production" });
  const connection = connect(database.url, 4);
  try {
    const config = loadConfig({ ...env, NODE_ENV: "production", LOG_LEVEL: "silent" });
    const deps = { db: connection.db, readDb: connection.db, config, secret: env.SECRET_KEY, now: () => new Date() };
    const services = buildServices(deps);
    const organization = await services.organizations.create({ name: "Bench Emails", slug: `bench-${database.name}` });
    const token = (
      await services.accessTokens.createOrganizationToken({
        organization_id: organization.id,
        comment: "bench",
        scopes: ["checkouts:read"],
        expires_in: null,
      })
    ).token;
    const checkout = await services.checkouts.create({ products: await seedProducts(connection.db, organization.id, 3) }, [
      organization.id,
    ]);
    const organizationRow = await connection.db
      .selectFrom("organizations")
      .selectAll()
      .where("id", "=", organization.id)
      .executeTakeFirstOrThrow();
    const rendered = renderOrderEmail({
      reason: "purchase",
      organization: { name: organization.name, logoUrl: null },
      recipient: "buyer@example.com",
      locale: "en",
      description: "Bench Pro",
      receiptNumber: "BENCH-0001",
      paidAt: new Date(),
      items: [{ label: "Bench Pro", amount: 4_900 }],
      amounts: { subtotal: 4_900, discount: 0, tax: 0, total: 4_900, currency: "usd" },
      benefits: [
        { description: "License key", licenseKey: { key: "BENCH-0000-1111-2222", activationLimit: 3, expiresAt: null }, files: [] },
      ],
      portalUrl: `${server.url}/${organization.slug}/portal`,
      documents: { receiptUrl: null, invoiceUrl: null },
    });

    const load = (seconds: number) =>
      autocannon({
        url: `${server.url}/v1/checkouts/${checkout.id}`,
        connections: CONNECTIONS,
        duration: seconds,
        headers: { authorization: `Bearer ${token}` },
      });
    /** Writes a burst of emails in one transaction; resolves with the seconds from its commit to the last one received. */
    let burstNumber = 0;
    async function burst(): Promise<number> {
      burstNumber += 1;
      const target = smtp.received() + EMAILS;
      await connection.db.transaction().execute(async (trx) => {
        for (let i = 0; i < EMAILS; i += 1)
          await recordEmail(trx, config.email, {
            organization: organizationRow,
            audience: { to: "customer", kind: "receipt", setting: "order_confirmation" },
            dedupeKey: `order_confirmation:bench-${burstNumber}-${i}`,
            template: "order_confirmation",
            locale: "en",
            recipient: `buyer-${i}@example.com`,
            rendered,
            now: new Date(),
          });
      });
      const committed = performance.now();
      while (smtp.received() < target) await new Promise((resolve) => setTimeout(resolve, 20));
      return (performance.now() - committed) / 1000;
    }

    console.log(
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    );
    await load(2);
    await burst();
    const rounds: { quiet: number; during: number; seconds: number }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const quiet = (await load(SECONDS)).requests.average;
      const [during, seconds] = await Promise.all([load(SECONDS), burst()]);
      rounds.push({ quiet, during: during.requests.average, seconds });
    }
    const mean = (pick: (round: (typeof rounds)[number]) => number) => rounds.reduce((sum, round) => sum + pick(round), 0) / rounds.length;
    console.log(
      `${EMAILS} emails per burst, ${CONNECTIONS} connections on GET /v1/checkouts/{id}, ${ROUNDS} interleaved rounds of ${SECONDS} s`,
    );
    for (const [i, round] of rounds.entries())
      console.log(
        `  round ${i + 1}: ${(EMAILS / round.seconds).toFixed(0)} emails/s (${round.seconds.toFixed(1)} s)   GET ${round.quiet.toFixed(0)} req/s quiet, ${round.during.toFixed(0)} during: ${((round.during / round.quiet) * 100).toFixed(1)}%`,
      );
    console.log(`emails/s: ${(EMAILS / mean((round) => round.seconds)).toFixed(0)}`);
    console.log(
      `GET during the burst / without it: ${((mean((round) => round.during) / mean((round) => round.quiet)) * 100).toFixed(1)}% (floor ${FLOOR_PERCENT}%)`,
    );
    if (mean((round) => round.seconds) > SECONDS)
      console.log(`note: a burst outlasted the ${SECONDS} s load; part of it ran after the measurement`);
  } finally {
    await connection.close();
    await server.stop();
    await smtp.close();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
