import http from "node:http";
import https from "node:https";
import { Webhook } from "standardwebhooks";
import { guardedLookup, urlProblem, type UrlPolicy } from "../../http/outbound-url-policy.ts";

/** How much of a receiver's answer the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 2048;
const USER_AGENT = "polar.sh webhooks";

// Healthy receivers are called many times a second: keep their connections open.
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export interface OutgoingWebhook {
  url: string;
  /**
   * The endpoint's `whsec_…` secrets that sign this attempt: the current one, then a rotated one
   * still within its overlap. Receivers accept a message when any signature verifies.
   */
  secrets: readonly string[];
  /** Stable across retries: receivers deduplicate on it. */
  messageId: string;
  body: string;
  /** Time of this attempt, signed into the message. */
  timestamp: Date;
}

export interface DeliveryResult {
  /** Null when no HTTP answer came back (refused address, connection error, timeout). */
  httpCode: number | null;
  /** The start of the body, or why there was no answer. */
  response: string | null;
  retryAfter: string | null;
  durationMs: number;
}

/**
 * Signs as the hosted service does: the Standard Webhooks library is given the base64 of the whole
 * `whsec_…` string, so the HMAC key is the secret's own UTF-8 bytes. Several secrets give several
 * space-separated `v1,…` signatures, as Standard Webhooks allows for rotation.
 */
export function signatureHeaders(message: OutgoingWebhook): Record<string, string> {
  const signatures = message.secrets.map((secret) =>
    new Webhook(Buffer.from(secret, "utf8").toString("base64")).sign(message.messageId, message.timestamp, message.body),
  );
  return {
    "webhook-id": message.messageId,
    "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}

/** One POST, never following redirects, bounded by `timeoutMs` from connect to the last byte read. */
export function postWebhook(message: OutgoingWebhook, options: { policy: UrlPolicy; timeoutMs: number }): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refused = urlProblem(message.url, options.policy);
  if (refused) return Promise.resolve({ httpCode: null, response: `Refused: ${refused}`, retryAfter: null, durationMs: 0 });

  const url = new URL(message.url);
  const transport = url.protocol === "https:" ? https : http;
  const body = Buffer.from(message.body, "utf8");
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<DeliveryResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const request = transport.request(url, {
      method: "POST",
      agent: agents[url.protocol as keyof typeof agents],
      lookup: guardedLookup(options.policy),
      headers: {
        ...signatureHeaders(message),
        "content-type": "application/json",
        "content-length": String(body.length),
        "user-agent": USER_AGENT,
      },
    });
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ httpCode: null, response: `Timed out after ${options.timeoutMs} ms`, retryAfter: null });
    }, options.timeoutMs);
    request.on("error", (error) => finish({ httpCode: null, response: error.message, retryAfter: null }));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => {
        const retryAfter = response.headers["retry-after"];
        finish({
          httpCode: response.statusCode ?? null,
          response: Buffer.concat(chunks).toString("utf8"),
          retryAfter: typeof retryAfter === "string" ? retryAfter : null,
        });
      };
      response.on("data", (chunk: Buffer) => {
        if (kept >= RESPONSE_EXCERPT_BYTES) return;
        const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
        chunks.push(part);
        kept += part.length;
        // Enough kept: stop reading a large body rather than waiting for all of it.
        if (kept >= RESPONSE_EXCERPT_BYTES) {
          response.destroy();
          done();
        }
      });
      response.on("end", done);
      response.on("error", done);
    });
    request.end(body);
  });
}
