import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createTestContext, listen, type TestContext } from "../helpers/context.ts";

/** Small timeouts, so slow clients are cut off within a test's time; production values are larger (README). */
const HEADERS_MS = 600;
const REQUEST_MS = 1_500;
const KEEP_ALIVE_MS = 400;
/** How late Node may act: its connection check runs every HEADERS_MS / 4, plus a loaded machine. */
const SLACK_MS = 1_500;

let ctx: TestContext;
let port: number;
beforeAll(async () => {
  ctx = await createTestContext({
    env: {
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    },
  });
  port = Number(new URL(await listen(ctx)).port);
});
afterAll(() => ctx.close());

interface Trickle {
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<{ received: string; afterMs: number }>;
  stop(): void;
}

/** A client that opens with `start`, then sends `drip` every 100 ms and never finishes its request. */
function trickle(start: string, drip: string): Trickle {
  const socket = net.connect(port, "127.0.0.1");
  const opened = performance.now();
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  socket.write(start);
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(drip);
  }, 100);
  const closed = new Promise<{ received: string; afterMs: number }>((resolve) =>
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ received, afterMs: performance.now() - opened });
    }),
  );
  return {
    closed,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe("slow clients against the listening server", () => {
  it("cuts off a client that never finishes its headers (slow loris) with 408, while others are served", async () => {
    const loris = trickle("GET /healthz HTTP/1.1\r\nHost: api.test\r\n", "X-Slow: 1\r\n");
    try {
      const healthy = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(healthy.status).toBe(200);
      const { received, afterMs } = await loris.closed;
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(afterMs).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(afterMs).toBeLessThan(HEADERS_MS + SLACK_MS);
    } finally {
      loris.stop();
    }
  });

  it("cuts off a client whose body trickles in past the request timeout with 408", async () => {
    const slowBody = trickle(
      `POST /v1/customers/ HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer ${ctx.ownerToken}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
      " ",
    );
    try {
      const { received, afterMs } = await slowBody.closed;
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(afterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(afterMs).toBeLessThan(REQUEST_MS + SLACK_MS);
      const customers = await ctx.database.db.selectFrom("customers").select("id").execute();
      expect(customers).toEqual([]);
    } finally {
      slowBody.stop();
    }
  });

  it("closes an idle kept-alive connection after the keep-alive timeout", async () => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())));
    socket.write("GET /healthz HTTP/1.1\r\nHost: api.test\r\nConnection: keep-alive\r\n\r\n");
    while (!received.includes('"status":"ok"')) await new Promise((resolve) => setTimeout(resolve, 10));
    const answered = performance.now();
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/keep-alive: timeout=0?\d/i);
    const idleMs = (await closed) - answered;
    expect(idleMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
    expect(idleMs).toBeLessThan(KEEP_ALIVE_MS + SLACK_MS);
  });
});

describe("timeout configuration", () => {
  it("has deliberate defaults and refuses a headers timeout longer than the request timeout", () => {
    expect(loadConfig({}).httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 60_000, keepAliveMs: 72_000 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "5000", HTTP_REQUEST_TIMEOUT_MS: "1000" })).toThrow(ConfigError);
  });
});
