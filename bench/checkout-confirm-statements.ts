/**
 * What one checkout confirm sends to PostgreSQL, independent of the machine's load: the rush's
 * confirm (one product with a license-key benefit, sandbox processor, `tok_visa`) made
 * BENCH_CONFIRMS times (default 5) one after another through the app (`inject`, no socket), every
 * statement of the pool's connections counted, transaction control (BEGIN, COMMIT) included, and
 * the notifications its commits send the job queue's workers (`jobs:insert`: graphile-worker's
 * `add_jobs` and `remove_job` each send one), counted by a listener. With `--list`, the statements of
 * the last confirm, in order.
 *
 *   DATABASE_URL=… npm run bench:checkout-confirm-statements [-- --list]
 */
import pg from "pg";
import { buildApp } from "../src/app.ts";
import { connect } from "../src/db/connection.ts";
import { benchDatabase } from "./bench-database.ts";
import { openBuyerCheckout, openLaunch } from "./checkout-launch.ts";

const CONFIRMS = Math.min(Number(process.env.BENCH_CONFIRMS ?? 5), 100);

/** Every statement any `pg` client of this process sends from now on, in order: its text, shortened. */
function traceStatements(): string[] {
  const sent: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first] = args;
    const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "?");
    sent.push(text.replace(/\s+/g, " ").trim().slice(0, 140));
    return query.apply(this, args);
  };
  return sent;
}

async function main(): Promise<void> {
  const database = await benchDatabase("bench-confirm-statements");
  // Before the pool's first client: each client binds its query function when it connects (db/copy-from.ts).
  const sent = traceStatements();
  const connection = connect(database.url, 10);
  try {
    const { deps, org, services, productId } = await openLaunch(connection, database.name);
    const app = await buildApp(deps, { logger: false, services });
    // Each committed notification reaches the listener before the answer to a query it sends after the commit.
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    let notified = 0;
    listener.on("notification", (message) => {
      if (message.channel === "jobs:insert") notified += 1;
    });
    await listener.query(`LISTEN "jobs:insert"`);
    const counts: number[] = [];
    const notifies: number[] = [];
    let last: string[] = [];
    for (let i = 0; i < CONFIRMS; i += 1) {
      const checkout = await openBuyerCheckout(services, org.id, productId, i);
      await listener.query("SELECT 1");
      notified = 0;
      const start = sent.length;
      const response = await app.inject({
        method: "POST",
        url: `/v1/checkouts/client/${checkout.client_secret}/confirm`,
        payload: { confirmation_token_id: "tok_visa" },
      });
      if (response.statusCode !== 200) throw new Error(`confirm answered ${response.statusCode}: ${response.body}`);
      last = sent.slice(start);
      counts.push(last.length);
      await listener.query("SELECT 1");
      notifies.push(notified);
    }
    await listener.end();
    console.log(`statements per confirm (${CONFIRMS} confirms, each a new buyer): ${counts.join(", ")}`);
    console.log(`job-queue notifications per confirm: ${notifies.join(", ")}`);
    if (process.argv.includes("--list")) for (const [i, text] of last.entries()) console.log(`${String(i + 1).padStart(3)} ${text}`);
    await app.close();
  } finally {
    await connection.close();
    await database.stop();
  }
}

await main();
