/**
 * The load generator of bench/events-ingest.ts, run in its own process so that building and
 * sending requests does not share the app's event loop.
 *   load  {url, token, seconds}: CLIENTS loops POSTing batches of BATCH_SIZE events.
 *   stall {url, token, bytes}: one batch of about `bytes`, while /healthz is pinged every 2 ms.
 */
import { Agent, request } from "node:http";
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
  /** The load generator's CPU time (this process's) over the measured run: building and sending the batches. */
  cpuMs?: number;
}

const RUN = Date.now().toString(36);

// What varies from batch to batch is written at fixed widths, so that a client can write each batch
// over its previous one (`batchWriter`): the batch's sequence number (base 36, in every external id),
// its timestamp (ISO, always 24 characters) and each event's `tokens` (right-aligned in spaces,
// which JSON allows: the same numbers as the floor's rows).
const SEQ_WIDTH = 4;
const TOKENS = 977;
const TOKENS_WIDTH = 3;

function seqText(seq: number): string {
  const text = seq.toString(36).padStart(SEQ_WIDTH, "0");
  if (text.length > SEQ_WIDTH) throw new Error(`batch ${seq} exceeds the sequence number's ${SEQ_WIDTH} characters`);
  return text;
}
const tokensText = (tokens: number) => String(tokens).padStart(TOKENS_WIDTH, " ");
const tokensOf = (seq: number, size: number, i: number) => (seq * size + i) % TOKENS;

/** Event `i` of a batch as the pieces of its JSON text; the odd pieces vary by batch: sequence number, timestamp, tokens. */
function eventPieces(prefix: string, client: number, seq: number, size: number, i: number, timestamp: string): string[] {
  return [
    `{"name":"api.call","external_customer_id":"cust_${i % 100}","external_id":"${prefix}-${RUN}-${client}-`,
    seqText(seq),
    `-${i}","timestamp":"`,
    timestamp,
    `","metadata":{"route":"/v1/things","tokens":`,
    tokensText(tokensOf(seq, size, i)),
    `,"ok":true}}`,
  ];
}

/** A batch as JSON text; every external id unique to (prefix, run, client, seq, i). */
export function buildBatch(prefix: string, client: number, seq: number, size: number): string {
  const timestamp = new Date().toISOString();
  const events = Array.from({ length: size }, (_, i) => eventPieces(prefix, client, seq, size, i, timestamp).join(""));
  return `{"events":[${events.join(",")}]}`;
}

/**
 * One client's batches as bytes ready to send: the text of `buildBatch` encoded once, then each next
 * batch written over the previous one where it differs (a few bytes per event at known offsets), so
 * the load generator spends its CPU sending batches rather than building and encoding ~190 KB of
 * text for each. The buffer is reused: the caller sends a batch before asking for the next.
 */
export function batchWriter(prefix: string, client: number, size: number): (seq: number) => Buffer {
  const varying: number[][] = [[], [], []];
  let text = `{"events":[`;
  for (let i = 0; i < size; i += 1) {
    if (i > 0) text += ",";
    eventPieces(prefix, client, 0, size, i, new Date(0).toISOString()).forEach((piece, k) => {
      if (k % 2 === 1) varying[(k - 1) / 2]!.push(text.length);
      text += piece;
    });
  }
  const body = Buffer.from(`${text}]}`, "latin1");
  const tokens = Array.from({ length: TOKENS }, (_, n) => Buffer.from(tokensText(n), "latin1"));
  const [seqAt, timestampAt, tokensAt] = varying as [number[], number[], number[]];
  return (seq) => {
    const seqBytes = Buffer.from(seqText(seq), "latin1");
    const timestamp = Buffer.from(new Date().toISOString(), "latin1");
    for (let i = 0; i < size; i += 1) {
      body.set(seqBytes, seqAt[i]);
      body.set(timestamp, timestampAt[i]);
      body.set(tokens[tokensOf(seq, size, i)]!, tokensAt[i]);
    }
    return body;
  };
}

/** How many events make a batch of about `bytes`, measured on a sample batch. */
export function eventsForBytes(bytes: number): number {
  const sample = 1_000;
  return Math.floor((bytes / Buffer.byteLength(buildBatch("stall", 0, 0, sample))) * sample);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// node:http rather than fetch: fetch (undici) took about three times the CPU per 190 KB request
// (bench/README.md, "Node's CPU under real HTTP, and the load generator's"), CPU the app and the
// database share with this process on the bench's machine.
const agent = new Agent({ keepAlive: true });

/** POSTs one batch on a kept-alive connection; the response's count, or null for any other status than 200. */
function post(url: string, token: string, body: Buffer | string): Promise<{ inserted: number } | null> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const sent = request(`${url}/v1/events/ingest`, { method: "POST", agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const json = JSON.parse(Buffer.concat(chunks).toString()) as { inserted: number };
        resolve(response.statusCode === 200 ? json : null);
      });
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

async function load(args: { url: string; token: string; seconds: number }): Promise<ClientResult> {
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + args.seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const batch = batchWriter("http", client, BATCH_SIZE);
      for (let seq = 0; performance.now() < deadline; seq += 1) {
        const body = batch(seq);
        const t0 = performance.now();
        const result = await post(args.url, args.token, body);
        latencies.push(performance.now() - t0);
        if (result) events += result.inserted;
        else errors += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
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
