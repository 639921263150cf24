import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { projectRoot } from "../helpers/process.ts";

/**
 * The compose stack as a user starts it. No Docker engine runs on these machines, so this checks
 * what can fail without one: images that float (`latest`, no tag) and stop resolving one day,
 * services started before what they need is ready, and the file as Docker Compose reads it.
 */
interface ComposeService {
  image?: string;
  build?: unknown;
  healthcheck?: unknown;
  depends_on?: string[] | Record<string, { condition?: string }>;
}

const composeFile = path.join(projectRoot, "docker-compose.yml");
const readCompose = async () => parse(await readFile(composeFile, "utf8"), { merge: true }) as { services: Record<string, ComposeService> };
/** A tag naming one release: digits with dots (`17.6`, `24.11.1`) or a dated `RELEASE.` tag, with an optional variant. */
const PINNED_TAG = /:(\d+\.\d+(\.\d+)?|RELEASE\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)(-[a-z0-9.]+)*$/;

describe("docker-compose.yml", () => {
  it("pins every pulled image, and the Dockerfile's base image, to one release", async () => {
    const { services } = await readCompose();
    const pulled = Object.entries(services).filter(([, service]) => service.build === undefined);
    expect(pulled.map(([name]) => name).sort()).toEqual(["postgres", "storage", "storage-bucket"]);
    for (const [name, service] of pulled) expect(service.image, name).toMatch(PINNED_TAG);
    const base = (await readFile(path.join(projectRoot, "Dockerfile"), "utf8")).match(/^FROM (\S+)/m)?.[1];
    expect(base).toMatch(PINNED_TAG);
  });

  it("starts each service after what it depends on is healthy, or has finished for the one-shot steps", async () => {
    const { services } = await readCompose();
    const waits: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = service.depends_on ?? {};
      // A bare list waits for nothing but the container's start.
      expect(Array.isArray(dependsOn), `${name} lists depends_on without conditions`).toBe(false);
      for (const [dependency, { condition }] of Object.entries(dependsOn as Record<string, { condition?: string }>)) {
        waits.push(`${name} → ${dependency}: ${condition}`);
        if (condition === "service_healthy") expect(services[dependency]?.healthcheck, `${dependency} has no healthcheck`).toBeDefined();
        else expect(condition, `${name} → ${dependency}`).toBe("service_completed_successfully");
      }
    }
    // Migrations run once, before the API and the worker; the API serves with the worker apart.
    expect(waits).toEqual(
      expect.arrayContaining([
        "migrate → postgres: service_healthy",
        "api → migrate: service_completed_successfully",
        "worker → migrate: service_completed_successfully",
      ]),
    );
    expect(services.api?.healthcheck).toBeDefined();
  });

  it("is valid for Docker Compose (docker-compose config)", async ({ skip }) => {
    const run = promisify(execFile);
    const available = await run("docker-compose", ["version"]).then(
      () => true,
      () => false,
    );
    skip(!available, "docker-compose is not installed (Debian's docker-compose package; .ci/run installs it)");
    const { stdout } = await run("docker-compose", ["-f", composeFile, "config", "--services"], { cwd: projectRoot });
    expect(stdout.trim().split("\n").sort()).toEqual(["api", "migrate", "postgres", "storage", "storage-bucket", "worker"]);
  });
});
