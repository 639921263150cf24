import { Type, type Static } from "@sinclair/typebox";
import { ListResource, PaginationQuery } from "../../schema/pagination.ts";
import { DateTime, Nullable, StringEnum, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";

/** Scopes an organization access token may be granted. */
export const AvailableScopes = [
  "openid",
  "profile",
  "email",
  "user:read",
  "user:write",
  "organizations:read",
  "organizations:write",
  "custom_fields:read",
  "custom_fields:write",
  "discounts:read",
  "discounts:write",
  "checkout_links:read",
  "checkout_links:write",
  "checkouts:read",
  "checkouts:write",
  "transactions:read",
  "transactions:write",
  "payouts:read",
  "payouts:write",
  "products:read",
  "products:write",
  "benefits:read",
  "benefits:write",
  "events:read",
  "events:write",
  "meters:read",
  "meters:write",
  "files:read",
  "files:write",
  "subscriptions:read",
  "subscriptions:write",
  "customers:read",
  "customers:write",
  "members:read",
  "members:write",
  "wallets:read",
  "wallets:write",
  "disputes:read",
  "disputes:write",
  "customer_meters:read",
  "customer_sessions:write",
  "member_sessions:write",
  "customer_seats:read",
  "customer_seats:write",
  "orders:read",
  "orders:write",
  "refunds:read",
  "refunds:write",
  "payments:read",
  "metrics:read",
  "metrics:write",
  "webhooks:read",
  "webhooks:write",
  "license_keys:read",
  "license_keys:write",
  "customer_portal:read",
  "customer_portal:write",
  "notifications:read",
  "notifications:write",
  "notification_recipients:read",
  "notification_recipients:write",
] as const;
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
