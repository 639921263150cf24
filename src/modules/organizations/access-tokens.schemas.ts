import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery } from "../../schema/pagination.ts";
import { AvailableScopes } from "./available-scopes.ts";
import { DateTime, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";

export { AvailableScopes };
export type AvailableScope = (typeof AvailableScopes)[number];
export const AvailableScope = StringEnum(AvailableScopes, { title: "AvailableScope" });

export const OrganizationAccessTokenCreate = Type.Object(
  {
    organization_id: Type.Optional(Nullable(Uuid4())),
    comment: Type.String({ maxLength: 255, description: "What the token is for." }),
    expires_in: Type.Optional(Nullable(Type.String({ format: "duration", description: "ISO 8601 duration, e.g. P30D." }))),
    scopes: Type.Array(AvailableScope, { maxItems: AvailableScopes.length, uniqueItems: true }),
  },
  { title: "OrganizationAccessTokenCreate" },
);
export type OrganizationAccessTokenCreate = Static<typeof OrganizationAccessTokenCreate>;

export const OrganizationAccessToken = Type.Object(
  {
    ...TimestampedFields,
    id: Uuid4(),
    scopes: Type.Array(Type.String()),
    expires_at: Nullable(DateTime()),
    comment: Type.String(),
    last_used_at: Nullable(DateTime()),
    organization_id: Uuid4({ description: "The organization ID." }),
  },
  { title: "OrganizationAccessToken" },
);
export type OrganizationAccessToken = Static<typeof OrganizationAccessToken>;

export const OrganizationAccessTokenCreateResponse = Type.Object(
  { organization_access_token: OrganizationAccessToken, token: Type.String({ description: "Shown once." }) },
  { title: "OrganizationAccessTokenCreateResponse" },
);
export type OrganizationAccessTokenCreateResponse = Static<typeof OrganizationAccessTokenCreateResponse>;

/** The organization's live tokens (an extension: the reference serves no token listing). */
export const OrganizationAccessTokenListQuery = Type.Object(
  { organization_id: Uuid4({ description: "The organization whose tokens to list." }), ...PaginationQuery },
  { additionalProperties: false },
);
export type OrganizationAccessTokenListQuery = Static<typeof OrganizationAccessTokenListQuery>;

export const ListResourceOrganizationAccessToken = ListResource(OrganizationAccessToken, {
  title: "ListResource[OrganizationAccessToken]",
});
