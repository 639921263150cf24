/**
 * A separate process running the renewal sweep once against DATABASE_URL at the instant SWEEP_AT,
 * starting at the wall-clock time START_AT (so that several such processes race), then printing
 * `renewed <n>`. Used by the multi-process renewal test.
 */
import { loadConfig } from "../../src/config.ts";
import { connect } from "../../src/db/connection.ts";
import { organizationClock } from "../../src/values/clock.ts";
import { buildServices } from "../../src/services.ts";

const url = process.env.DATABASE_URL;
const at = process.env.SWEEP_AT;
const startAt = Number(process.env.START_AT);
if (!url || !at || !Number.isFinite(startAt)) throw new Error("DATABASE_URL, SWEEP_AT and START_AT are required");
const connection = connect(url, 5);
const deps = {
  db: connection.db,
  readDb: connection.db,
  config: loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent" }),
  secret: "sweep",
  now: organizationClock(() => new Date(at)),
};
const renewals = buildServices(deps).subscriptionRenewals;
await new Promise((resolve) => setTimeout(resolve, Math.max(startAt - Date.now(), 0)));
const done = await renewals.sweep();
process.stdout.write(`renewed ${done.renewed}\n`);
await connection.close();
