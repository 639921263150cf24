import { existsSync, statSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { perProcessStart, spawnProject, stopSpawned } from "./helpers/process.ts";

let database: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-server-"));
});
afterEach(stopSpawned);
afterAll(async () => {
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const readyUrl = async (server: ReturnType<typeof spawnProject>) => {
  const [, url] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
  await server.waitFor(/"msg":"ready"/);
  return url!;
};

// Each test starts the server at most twice (the embedded one starts its own PostgreSQL too).
describe("the server process", { timeout: perProcessStart(2) }, () => {
  it("starts on DATABASE_URL, prints the owner token once, logs without secrets and stops cleanly on SIGTERM", async () => {
    const env = { DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info", WORKER_ENABLED: "true" };
    const server = spawnProject(["src/server.ts"], env);
    const url = await readyUrl(server);
    const [, token] = await server.waitFor(/(polar_pat_[A-Za-z0-9]{43})/);
    const file = path.join(dataDir, "admin-token");
    expect(readFileSync(file, "utf8").trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: "ready" });
    const created = await fetch(`${url}/v1/organizations/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-request-id": "req-test-0001" },
      body: JSON.stringify({ name: "Process Org", slug: "process-org" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBe("req-test-0001");
    await fetch(`${url}/v1/checkouts/client/polar_c_SECRETSECRETSECRETSECRET`);

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const logs = server.output();
    expect(logs).toContain('"reqId":"req-test-0001"');
    expect(logs).toContain('"msg":"stopped"');
    // The token appears once: in the first-start notice, never in a log line.
    expect(logs.split(token!).length - 1).toBe(1);
    expect(logs).not.toContain("SECRETSECRET");

    const again = spawnProject(["src/server.ts"], env);
    await readyUrl(again);
    again.child.kill("SIGINT");
    expect(await again.exited).toBe(0);
    expect(again.output()).not.toContain("polar_pat_");
  });

  it("finishes an in-flight write before it stops on SIGTERM", async () => {
    const owner = `polar_pat_${"b".repeat(43)}`;
    const server = spawnProject(["src/server.ts"], {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      PORT: "0",
      ADMIN_TOKEN: owner,
      LOG_LEVEL: "info",
    });
    const url = await readyUrl(server);
    const headers = { authorization: `Bearer ${owner}`, "content-type": "application/json" };
    const org = (await (
      await fetch(`${url}/v1/organizations/`, { method: "POST", headers, body: JSON.stringify({ name: "Drain", slug: "drain-org" }) })
    ).json()) as { id: string };
    const events = Array.from({ length: 20_000 }, (_, i) => ({
      name: "drain",
      organization_id: org.id,
      external_customer_id: "c1",
      external_id: `drain-${i}`,
    }));
    const inFlight = fetch(`${url}/v1/events/ingest`, { method: "POST", headers, body: JSON.stringify({ events }) });
    await server.waitFor(/"url":"\/v1\/events\/ingest"/);
    server.child.kill("SIGTERM");
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ inserted: 20_000, duplicates: 0 });
    expect(await server.exited, server.output().slice(-3000)).toBe(0);
    const stored = await database.db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("organization_id", "=", org.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(20_000);
  });

  it("fails fast naming a bad variable", async () => {
    const server = spawnProject(["src/server.ts"], { PORT: "not-a-port", DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("Invalid environment variable PORT");
  });

  it("fails fast on a malformed SMTP_URL in one line that names it, without its password", async () => {
    const server = spawnProject(["src/server.ts"], { SMTP_URL: "smtp://mailer:hunter2-secret@mail.example/inbox", DATA_DIR: dataDir });
    expect(await server.exited).toBe(1);
    const lines = server.output().trim().split("\n");
    expect(lines.filter((line) => line.includes("SMTP_URL"))).toEqual([
      "Invalid environment variable SMTP_URL: no path, query or fragment is taken",
    ]);
    expect(server.output()).not.toContain("hunter2");
  });

  it("runs its own PostgreSQL when DATABASE_URL is unset, and stops it on shutdown", async () => {
    // A private (0700) temp folder, as `mktemp -d` makes: the server must still be able to use it as root.
    const embeddedDir = await mkdtemp(path.join(os.tmpdir(), "commerce-api-embedded-"));
    try {
      const server = spawnProject(["src/server.ts"], { DATA_DIR: embeddedDir, PORT: "0", ADMIN_TOKEN: `polar_pat_${"a".repeat(43)}` });
      const url = await readyUrl(server);
      const response = await fetch(`${url}/v1/organizations/`, {
        method: "POST",
        headers: { authorization: `Bearer polar_pat_${"a".repeat(43)}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Embedded", slug: "embedded-org" }),
      });
      expect(response.status).toBe(201);
      expect(existsSync(path.join(embeddedDir, "postgres", "postmaster.pid"))).toBe(true);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(existsSync(path.join(embeddedDir, "postgres", "postmaster.pid"))).toBe(false);
    } finally {
      await rm(embeddedDir, { recursive: true, force: true });
    }
  });
});
