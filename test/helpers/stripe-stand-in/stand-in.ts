import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { decodeForm, type FormObject } from "./form-body.ts";
import { assertValidObject, completeObject, requestProblems, stripeDocumentAvailable } from "./stripe-openapi.ts";
import { StripeApiError, StripeState, type StripeObject } from "./stripe-api.ts";
import { answerBrowser, type BrowserToken } from "./stripe-js.ts";

/**
 * A local Stripe for tests: a real HTTP server the real SDK talks to (`STRIPE_API_URL`). It checks
 * every request against Stripe's OpenAPI document (a request the document refuses is recorded as a
 * violation and fails the test at `assertNoViolations`), answers whole Stripe objects that validate
 * against the same document, keeps idempotency keys as Stripe does, and sends signed webhook
 * events in Stripe's order: right after the answer (default), before it (the webhook racing the
 * caller's commit), or held for the test to release late, twice or out of order.
 */

export interface StandInRequest {
  method: string;
  path: string;
  params: FormObject;
  idempotencyKey: string | null;
}

export type StripeEvent = StripeObject & { type: string; data: { object: StripeObject } };
export type Delivery = "immediate" | "before-response" | "held";

export interface StripeStandIn {
  readonly url: string;
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  readonly requests: ReadonlyArray<StandInRequest>;
  readonly violations: ReadonlyArray<string>;
  readonly events: ReadonlyArray<StripeEvent>;
  /** Confirmation tokens the stand-in's Stripe.js (`/v3/stripe.js`) made in a browser, with what the page passed. */
  readonly browserTokens: ReadonlyArray<BrowserToken>;
  /** The webhook endpoint events are POSTed to; null keeps them undelivered. */
  deliverTo(url: string | null): void;
  setDelivery(mode: Delivery): void;
  /** Delivers the held events (those `filter` keeps), in order or reversed, each once or twice; their HTTP statuses. */
  release(options?: { filter?: (event: StripeEvent) => boolean; reversed?: boolean; twice?: boolean }): Promise<number[]>;
  /** Sends an event again (Stripe's redelivery). */
  resend(eventId: string): Promise<number>;
  /** Resolves once every delivery started so far has been answered. */
  delivered(): Promise<void>;
  /** Not Stripe's API: the 3-D Secure challenge of a waiting intent passed or failed. */
  authenticate(intentId: string, result: "succeeded" | "failed"): Promise<void>;
  failRefund(refundId: string): Promise<void>;
  disputeCharge(chargeId: string): Promise<StripeObject>;
  closeDispute(disputeId: string, status: "won" | "lost"): Promise<void>;
  setLatencyMs(ms: number): void;
  assertNoViolations(): void;
  close(): Promise<void>;
}

const API_VERSION = "2026-01-28.clover";
const component = (object: StripeObject) => (object.object === "customer" && object.deleted ? "deleted_customer" : object.object);

/**
 * Counts a request the document could not check (it is missing) on the running test, as the
 * reference checks do; outside a test run (a bench) there is nothing to count on.
 */
async function uncheckedCounter(): Promise<() => void> {
  if (!process.env.VITEST) return () => undefined;
  const { TestRunner } = await import("vitest");
  return () => {
    const task = TestRunner.getCurrentTest() ?? TestRunner.getCurrentSuite()?.file;
    if (task) task.meta.referenceChecksNotRun = (task.meta.referenceChecksNotRun ?? 0) + 1;
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `checkRequests: false` (benches) skips the document's checks of requests and answers: they
 * would be Stripe's own time, not the caller's.
 */
export async function startStripeStandIn(options: { deliverTo?: string; checkRequests?: boolean } = {}): Promise<StripeStandIn> {
  const checking = (options.checkRequests ?? true) && stripeDocumentAvailable;
  const countUnchecked = await uncheckedCounter();
  const secretKey = `sk_test_standin${randomBytes(12).toString("hex")}`;
  const publishableKey = `pk_test_standin${randomBytes(12).toString("hex")}`;
  const webhookSecret = `whsec_${randomBytes(24).toString("base64url")}`;
  const state = new StripeState();
  const requests: StandInRequest[] = [];
  const violations: string[] = [];
  const events: StripeEvent[] = [];
  const browserTokens: BrowserToken[] = [];
  const held: StripeEvent[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  let endpoint = options.deliverTo ?? null;
  let delivery: Delivery = "immediate";
  let latencyMs = 0;
  /** Events of the request being answered, sent once its mode says so. */
  let caused: StripeEvent[] = [];

  state.onEvent = (type, object) => {
    const event = completeObject("event", {
      id: `evt_${randomBytes(12).toString("hex")}`,
      object: "event",
      api_version: API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object: render(object, []) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }) as StripeEvent;
    if (checking) assertValidObject("event", event);
    events.push(event);
    caused.push(event);
  };

  async function send(event: StripeEvent): Promise<number> {
    if (!endpoint) return 0;
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        "stripe-signature": signature,
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: payload,
    });
    await response.arrayBuffer();
    return response.status;
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }

  /** Sends the events one request caused, one after the other as Stripe does for one endpoint. */
  const sendAll = (batch: StripeEvent[]) =>
    track(
      (async () => {
        for (const event of batch) await send(event);
      })(),
    );

  /** Answers render expandable fields as ids unless `expand[]` asks for the object. */
  function render(object: StripeObject, expand: string[]): StripeObject {
    const copy: StripeObject = { ...object };
    for (const field of expand) {
      const value = copy[field];
      if (typeof value === "string" && state.objects.has(value)) copy[field] = render(state.objects.get(value)!, []);
    }
    return completeObject(component(object), copy) as StripeObject;
  }

  const list = (objects: StripeObject[], path: string, expand: string[], limit = 10) => ({
    object: "list",
    data: objects
      .slice(-limit)
      .reverse()
      .map((object) => render(object, expand)),
    has_more: objects.length > limit,
    url: path,
  });

  /** The API call itself: Stripe's answer, or a StripeApiError. */
  function route(method: string, path: string, params: FormObject): StripeObject | ReturnType<typeof list> {
    const segments = path.split("/").slice(2);
    // `/v1/test_helpers/<resource>…`: the test-mode twin of a resource.
    if (segments[0] === "test_helpers") segments.splice(0, 2, `test_helpers/${segments[1]}`);
    const [resource, objectId, action] = segments;
    const expand = Array.isArray(params.expand) ? params.expand.map(String) : [];
    const limit = params.limit ? Number(params.limit) : 10;
    const key = `${method} ${resource}${objectId ? "/:id" : ""}${action ? `/${action}` : ""}`;
    const one = (kind: string) => state.get(kind, objectId!, kind);
    const filtered = (kind: string, by: Record<string, unknown>) =>
      state.all(kind).filter((object) => Object.entries(by).every(([field, value]) => value === undefined || object[field] === value));
    switch (key) {
      case "POST customers":
        return render(state.createCustomer(params), expand);
      case "GET customers/:id":
        return render(one("customer"), expand);
      case "POST customers/:id":
        return render(
          Object.assign(one("customer"), {
            ...(params.email ? { email: params.email } : {}),
            ...(params.name ? { name: params.name } : {}),
          }),
          expand,
        );
      case "DELETE customers/:id":
        return { id: one("customer").id, object: "customer", deleted: true };
      case "GET customers/:id/payment_methods":
        return list(filtered("payment_method", { customer: one("customer").id }), path, expand, limit);
      case "GET payment_methods":
        return list(filtered("payment_method", { customer: params.customer }), path, expand, limit);
      case "GET payment_methods/:id":
        return render(one("payment_method"), expand);
      case "POST payment_methods/:id/attach": {
        const method = one("payment_method");
        state.attach(method, state.get("customer", typeof params.customer === "string" ? params.customer : "", "customer").id);
        return render(method, expand);
      }
      case "POST payment_methods/:id/detach":
        return render(state.detach(one("payment_method")), expand);
      case "POST test_helpers/confirmation_tokens":
        return render(state.createConfirmationToken(params), expand);
      case "GET confirmation_tokens/:id":
        return render(one("confirmation_token"), expand);
      case "POST payment_intents":
        return render(state.createPaymentIntent(params), expand);
      case "GET payment_intents":
        return list(filtered("payment_intent", { customer: params.customer }), path, expand, limit);
      case "GET payment_intents/:id":
        return render(one("payment_intent"), expand);
      case "POST payment_intents/:id/confirm":
        return render(state.confirmPaymentIntent(one("payment_intent"), params), expand);
      case "POST payment_intents/:id/cancel":
        return render(state.cancelPaymentIntent(one("payment_intent")), expand);
      case "POST setup_intents":
        return render(state.createSetupIntent(params), expand);
      case "GET setup_intents/:id":
        return render(one("setup_intent"), expand);
      case "POST setup_intents/:id/confirm":
        return render(state.confirmSetupIntent(one("setup_intent"), params), expand);
      case "POST refunds":
        return render(state.createRefund(params), expand);
      case "GET refunds":
        return list(filtered("refund", { charge: params.charge, payment_intent: params.payment_intent }), path, expand, limit);
      case "GET refunds/:id":
        return render(one("refund"), expand);
      case "GET charges/:id":
        return render(one("charge"), expand);
      case "GET disputes":
        return list(filtered("dispute", { charge: params.charge, payment_intent: params.payment_intent }), path, expand, limit);
      case "GET disputes/:id":
        return render(one("dispute"), expand);
      case "POST disputes/:id/close":
        return render(state.closeDispute(one("dispute"), "lost"), expand);
      case "GET events":
        return list(
          events.filter((event) => !params.type || event.type === params.type),
          path,
          [],
          limit,
        );
      case "GET events/:id": {
        const event = events.find((candidate) => candidate.id === objectId);
        if (!event)
          throw new StripeApiError(404, {
            type: "invalid_request_error",
            code: "resource_missing",
            message: `No such event: '${objectId}'`,
          });
        return event;
      }
      default:
        throw new StripeApiError(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` });
    }
  }

  function checkAnswer(answer: unknown): void {
    const body = answer as { object?: string; data?: StripeObject[] };
    if (body.object === "list") for (const item of body.data ?? []) assertValidObject(component(item), item);
    else if (body.object) assertValidObject(component(body as StripeObject), body);
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const raw = await readBody(request);
    const method = request.method ?? "GET";
    const reply = (status: number, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomBytes(8).toString("hex")}`, ...headers });
      response.end(body);
    };
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      reply(401, JSON.stringify({ error: { type: "invalid_request_error", message: "Invalid API Key provided." } }));
      return;
    }
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    const params = method === "GET" || method === "DELETE" ? decodeForm(url.search.slice(1)) : decodeForm(raw);
    const idempotencyKey = typeof request.headers["idempotency-key"] === "string" ? request.headers["idempotency-key"] : null;
    requests.push({ method, path: url.pathname, params, idempotencyKey });
    if (checking) violations.push(...requestProblems(method, url.pathname, params));
    else if (options.checkRequests !== false) countUnchecked();

    const fingerprint = createHash("sha256").update(`${method} ${url.pathname} ${raw}`).digest("hex");
    const stored = method === "POST" && idempotencyKey ? idempotent.get(idempotencyKey) : undefined;
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`;
        reply(400, JSON.stringify({ error: { type: "idempotency_error", message } }));
      } else reply(stored.status, stored.body, { "idempotent-replayed": "true", "idempotency-key": idempotencyKey! });
      return;
    }
    caused = [];
    let status = 200;
    let body: string;
    try {
      const result = route(method, url.pathname, params);
      if (checking) checkAnswer(result);
      body = JSON.stringify(result);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      status = error.status;
      body = JSON.stringify({ error: error.body });
    }
    if (method === "POST" && idempotencyKey) idempotent.set(idempotencyKey, { fingerprint, status, body });
    const batch = caused;
    caused = [];
    if (delivery === "held") held.push(...batch);
    else if (delivery === "before-response") await sendAll(batch);
    reply(status, body, idempotencyKey ? { "idempotency-key": idempotencyKey } : {});
    if (delivery === "immediate") void sendAll(batch);
  }

  /** A test-side Stripe action: its events go out as a request's would. */
  async function act(action: () => void): Promise<void> {
    caused = [];
    action();
    const batch = caused;
    caused = [];
    if (delivery === "held") held.push(...batch);
    else await sendAll(batch);
  }

  const browser = { publishableKey, state, tokens: browserTokens, act, render: (object: StripeObject) => render(object, []) };
  let origin = "";
  const server = createServer((request, response) => {
    answerBrowser(request, response, browser, origin)
      .then((handled) => (handled ? undefined : answer(request, response)))
      .catch((error: unknown) => {
        violations.push(`stand-in failure: ${String(error)}`);
        if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { type: "api_error", message: String(error) } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    url: origin,
    secretKey,
    publishableKey,
    webhookSecret,
    requests,
    violations,
    events,
    browserTokens,
    deliverTo: (url) => {
      endpoint = url;
    },
    setDelivery: (mode) => {
      delivery = mode;
    },
    async release({ filter = () => true, reversed = false, twice = false } = {}) {
      const chosen = held.filter(filter);
      for (const event of chosen) held.splice(held.indexOf(event), 1);
      const ordered = reversed ? [...chosen].reverse() : chosen;
      const statuses: number[] = [];
      for (const event of ordered) for (let copy = 0; copy < (twice ? 2 : 1); copy += 1) statuses.push(await track(send(event)));
      return statuses;
    },
    resend: async (eventId) => {
      const event = events.find((candidate) => candidate.id === eventId);
      if (!event) throw new Error(`no event ${eventId}`);
      return track(send(event));
    },
    delivered: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    authenticate: (intentId, result) => act(() => state.authenticate(intentId, result)),
    failRefund: (refundId) => act(() => state.failRefund(refundId)),
    disputeCharge: async (chargeId) => {
      let dispute: StripeObject | undefined;
      await act(() => {
        dispute = state.openDispute(state.get("charge", chargeId, "charge"));
      });
      return dispute!;
    },
    closeDispute: (disputeId, status) => act(() => state.closeDispute(state.get("dispute", disputeId, "dispute"), status)),
    setLatencyMs: (ms) => {
      latencyMs = ms;
    },
    assertNoViolations: () => {
      if (violations.length > 0) throw new Error(`requests Stripe's document refuses:\n${violations.splice(0).join("\n")}`);
    },
    close: async () => {
      await Promise.allSettled([...inFlight]);
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
