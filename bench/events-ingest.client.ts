/**
 * The load generator of bench/events-ingest.ts, run in its own process so that building and
 * sending requests does not share the app's event loop.
 *   load  {url, token, seconds}: CLIENTS loops POSTing batches of BATCH_SIZE events.
 *   stall {url, token, bytes}: one batch of about `bytes`, while /healthz is pinged every 2 ms.
 */
import { fileURLToPath } from "node:url";

export const CLIENTS = 4;
export const BATCH_SIZE = 1_000;

export interface ClientResult {
  events: number;
  requests: number;
  errors: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  probes?: number;
  probeMaxMs?: number;
  probeP99Ms?: number;
}

const RUN = Date.now().toString(36);

/** A batch as JSON text, built by concatenation: cheap enough not to be the bottleneck. */
export function buildBatch(prefix: string, client: number, seq: number, size: number): string {
  const timestamp = new Date().toISOString();
  const parts: string[] = [];
  for (let i = 0; i < size; i += 1) {
    parts.push(
      `{"name":"api.call","external_customer_id":"cust_${i % 100}","external_id":"${prefix}-${RUN}-${client}-${seq}-${i}","timestamp":"${timestamp}","metadata":{"route":"/v1/things","tokens":${(seq * size + i) % 977},"ok":true}}`,
    );
  }
  return `{"events":[${parts.join(",")}]}`;
}

/** How many events make a batch of about `bytes`, measured on a sample batch. */
export function eventsForBytes(bytes: number): number {
  const sample = 1_000;
  return Math.floor((bytes / Buffer.byteLength(buildBatch("stall", 0, 0, sample))) * sample);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function post(url: string, token: string, body: string): Promise<{ inserted: number } | null> {
  const response = await fetch(`${url}/v1/events/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body,
  });
  const json = (await response.json()) as { inserted: number };
  return response.status === 200 ? json : null;
}

async function load(args: { url: string; token: string; seconds: number }): Promise<ClientResult> {
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + args.seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let seq = 0; performance.now() < deadline; seq += 1) {
        const body = buildBatch("http", client, seq, BATCH_SIZE);
        const t0 = performance.now();
        const result = await post(args.url, args.token, body);
        latencies.push(performance.now() - t0);
        if (result) events += result.inserted;
        else errors += 1;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    events,
    requests: latencies.length,
    errors,
    seconds: (performance.now() - started) / 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

async function stall(args: { url: string; token: string; bytes: number }): Promise<ClientResult> {
  const body = buildBatch("stall", 0, 0, eventsForBytes(args.bytes));
  const size = Buffer.byteLength(body);
  if (size > 10 * 1024 * 1024) throw new Error(`stall batch of ${size} bytes exceeds the default body limit`);
  const probes: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const t0 = performance.now();
      await fetch(`${args.url}/healthz`).then((r) => r.arrayBuffer());
      probes.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const t0 = performance.now();
  const result = await post(args.url, args.token, body);
  const elapsed = performance.now() - t0;
  running = false;
  await probing;
  probes.sort((a, b) => a - b);
  return {
    events: result?.inserted ?? 0,
    requests: 1,
    errors: result ? 0 : 1,
    seconds: elapsed / 1000,
    p50Ms: elapsed,
    p99Ms: elapsed,
    probes: probes.length,
    probeMaxMs: probes[probes.length - 1] ?? 0,
    probeP99Ms: percentile(probes, 99),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, raw] = process.argv.slice(2);
  const args = JSON.parse(raw ?? "{}") as { url: string; token: string; seconds: number; bytes: number };
  const result = mode === "stall" ? await stall(args) : await load(args);
  process.stdout.write(JSON.stringify(result));
}
