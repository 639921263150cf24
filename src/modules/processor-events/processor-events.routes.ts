import type { FastifyPluginAsync } from "fastify";
import { notJson } from "./processor-events.errors.ts";
import type { ProcessorEventInbox } from "./processor-events.service.ts";

/** Stripe sends `application/json; charset=utf-8`. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/** Stripe's events are small (tens of kilobytes); a megabyte leaves room and bounds what an anonymous caller can send. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /v1/integrations/stripe/webhook`: Stripe's deliveries, registered only when Stripe is the
 * processor. No bearer token: the `Stripe-Signature` over the exact bytes is the credential, so
 * this plugin keeps bodies as raw buffers (its own parser, encapsulated: every other route still
 * gets parsed JSON). A body that is not JSON, a missing signature or a payload that is no event: 400; a signature that
 * does not match or is too old: 401; otherwise 202, stored or not (the hosted service's answers).
 * Not an operation of the interface, so it is left out of the OpenAPI document.
 */
export const stripeWebhookRoutes =
  (inbox: ProcessorEventInbox): FastifyPluginAsync =>
  async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

    app.post("/v1/integrations/stripe/webhook", { bodyLimit: WEBHOOK_BODY_LIMIT, schema: { hide: true } }, async (request, reply) => {
      if (!JSON_MEDIA_TYPE.test(request.headers["content-type"] ?? "")) throw notJson();
      const signature = request.headers["stripe-signature"];
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      await inbox.receive(body, typeof signature === "string" ? signature : undefined);
      return reply.code(202).send();
    });
  };
