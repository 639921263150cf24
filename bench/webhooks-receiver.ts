/**
 * The benchmark's subscriber, run as its own process as a real receiver would be: answers 200 at
 * once and keeps, per delivery, its arrival time, latency, webhook-id and benchmark phase; sends them to the parent
 * when asked.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

const arrivals: { at: number; latency: number; id: string; phase: string }[] = [];
const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data: { sent_at: number; phase: string } };
    arrivals.push({ at: now, latency: now - body.data.sent_at, id: String(request.headers["webhook-id"]), phase: body.data.phase });
    response.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on("message", (message: { report?: "count" | "all" }) => {
  process.send?.(message.report === "all" ? { arrivals } : { count: arrivals.length });
});
process.on("disconnect", () => process.exit(0));
