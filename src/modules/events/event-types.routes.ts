import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { organizationScope, principalOf } from "../../http/auth.ts";
import { ORGANIZATION_SIDE, requireAuth, responses } from "../../http/route-auth.ts";
import {
  EventType,
  EventTypeIdParams,
  EventTypeListQuery,
  EventTypeUpdate,
  ListResourceEventTypeWithStats,
} from "./event-types.schemas.ts";
import type { EventTypeService } from "./event-types.service.ts";

const tags = ["event-types"];

export const eventTypeRoutes =
  (eventTypes: EventTypeService): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/v1/event-types/",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["events:read", "events:write"]),
        schema: {
          operationId: "event-types:list",
          tags,
          summary: "List Event Types",
          description: "List event types with aggregated statistics.",
          querystring: EventTypeListQuery,
          response: responses({ 200: ListResourceEventTypeWithStats }),
        },
      },
      async (request) => eventTypes.list(request.query, organizationScope(principalOf(request))),
    );

    app.patch(
      "/v1/event-types/:id",
      {
        config: requireAuth(ORGANIZATION_SIDE, ["events:write"]),
        schema: {
          operationId: "event-types:update",
          tags,
          summary: "Update Event Type",
          description: "Update an event type's label.",
          params: EventTypeIdParams,
          body: EventTypeUpdate,
          response: responses({ 200: EventType }, { notFound: true }),
        },
      },
      async (request) => eventTypes.update(request.params.id, request.body, organizationScope(principalOf(request))),
    );
  };
