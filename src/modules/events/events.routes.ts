import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { SafePromiseLike } from "fastify";
import { Type } from "@sinclair/typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { LengthRequired } from "../../http/errors.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import { Uuid4 } from "../../schema/primitives.ts";
import { paramsAjv } from "../../http/validation.ts";
import { createIngestValidator } from "./events.ingest-validation.ts";
import {
  Event,
  EventListQuery,
  EventNameListQuery,
  EventsIngest,
  EventsIngestResponse,
  ListResourceEvent,
  ListResourceEventName,
} from "./events.schemas.ts";
import type { EventService } from "./events.service.ts";

const EventIdParams = Type.Object({ id: Uuid4({ description: "The event ID." }) });
const READ_SCOPES = ["events:read", "events:write"];

export const eventRoutes =
  (events: EventService, now: () => Date): FastifyPluginAsyncTypebox =>
  async (app) => {
    // As the reference: a body of unstated length is refused before it is read (chunked uploads).
    app.addHook("onRequest", async (request) => {
      if (request.method === "POST" && request.headers["content-length"] === undefined) throw new LengthRequired();
    });

    const validateIngest = createIngestValidator(now);
    // Fastify brands the promise of an asynchronous validator in its types; ours follows its contract.
    const ingestValidator = (body: unknown) => {
      const result = validateIngest(body);
      return result instanceof Promise ? (result as unknown as SafePromiseLike<true>) : result;
    };
    app.post(
      "/v1/events/ingest",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["events:write"]),
        validatorCompiler: ({ schema, httpPart }) => (httpPart === "body" ? ingestValidator : paramsAjv.compile(schema)),
        schema: {
          operationId: "events:ingest",
          tags: ["events"],
          summary: "Ingest Events",
          description:
            "Ingest a batch of events. The batch is stored entirely or not at all; events whose external_id is known are skipped.",
          body: EventsIngest,
          response: responses({ 200: EventsIngestResponse }),
        },
      },
      async (request) => events.ingest(request.body, principalOf(request)),
    );

    app.get(
      "/v1/events/",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ_SCOPES),
        schema: {
          operationId: "events:list",
          tags: ["events"],
          summary: "List Events",
          description: "List events. Filter by metadata with `metadata[key]=value`.",
          querystring: EventListQuery,
          response: responses({ 200: ListResourceEvent }),
        },
      },
      async (request) => events.list(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/events/names",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ_SCOPES),
        schema: {
          operationId: "events:list_names",
          tags: ["events"],
          summary: "List Event Names",
          description: "List the names of the events, per source, with their occurrences and first and last times.",
          querystring: EventNameListQuery,
          response: responses({ 200: ListResourceEventName }),
        },
      },
      async (request) => events.listNames(request.query, organizationScope(principalOf(request))),
    );

    app.get(
      "/v1/events/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, READ_SCOPES),
        schema: {
          operationId: "events:get",
          tags: ["events"],
          summary: "Get Event",
          description: "Get an event by ID.",
          params: EventIdParams,
          response: responses({ 200: Event }, { notFound: true }),
        },
      },
      async (request) => events.get(request.params.id, organizationScope(principalOf(request))),
    );
  };
