import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { EMAIL_MAX, EXTERNAL_ID_MAX } from "../customers/customers.schemas.ts";
import { Member } from "../customers/members.schemas.ts";

export const SeatStatusValues = ["pending", "claimed", "revoked"] as const;

export const CustomerSeat = Type.Object(
  {
    created_at: DateTime({ description: "Creation timestamp of the object." }),
    modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
    id: Uuid4({ description: "The seat ID" }),
    subscription_id: Nullable(Uuid4(), { description: "The subscription ID (for recurring seats)" }),
    order_id: Nullable(Uuid4(), { description: "The order ID (for one-time purchase seats)" }),
    status: StringEnum(SeatStatusValues, { title: "SeatStatus", description: "Status of the seat" }),
    customer_id: Nullable(Uuid4(), {
      description:
        "The customer ID. When member_model_enabled is true, this is the billing customer (purchaser). When false, this is the seat member customer.",
    }),
    member_id: Nullable(Uuid4(), { description: "The member ID of the seat occupant" }),
    member: Nullable(Member, { description: "The member associated with this seat" }),
    email: Nullable(Type.String(), { description: "Email of the seat member (set when member_model_enabled is true)" }),
    customer_email: Nullable(Type.String(), { description: "The assigned customer email" }),
    invitation_token_expires_at: Nullable(DateTime(), { description: "When the invitation token expires" }),
    claimed_at: Nullable(DateTime(), { description: "When the seat was claimed" }),
    revoked_at: Nullable(DateTime(), { description: "When the seat was revoked" }),
    seat_metadata: Nullable(Type.Record(Type.String(), Type.Unknown()), { description: "Additional metadata for the seat" }),
  },
  { title: "CustomerSeat" },
);
export type CustomerSeat = Static<typeof CustomerSeat>;

const NullableUuid = (description: string) => Type.Optional(Nullable(Uuid4({ description }), { description }));
const ExternalId = (description: string) =>
  Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description }), { description }));

/** The seat metadata's limits, as the hosted service documents them: at most 10 keys and 1 KB of JSON. */
export const SEAT_METADATA_MAX_KEYS = 10;
export const SEAT_METADATA_MAX_BYTES = 1024;

const seatAssignFields = {
  subscription_id: NullableUuid("Subscription ID. Required if neither order_id nor checkout_id is provided."),
  order_id: NullableUuid("Order ID for one-time purchases. Required if subscription_id is not provided."),
  email: Type.Optional(
    Nullable(Type.String({ format: "email", maxLength: EMAIL_MAX }), { description: "Email of the customer to assign the seat to" }),
  ),
  external_customer_id: ExternalId("External customer ID for the seat assignment"),
  customer_id: NullableUuid("Customer ID for the seat assignment"),
  external_member_id: ExternalId(
    "External member ID for the seat assignment. Can be used alone (lookup existing member) or with email (create/validate member).",
  ),
  member_id: NullableUuid("Member ID for the seat assignment."),
  metadata: Type.Optional(
    Nullable(Type.Record(Type.String(), Type.Unknown(), { maxProperties: SEAT_METADATA_MAX_KEYS }), {
      description: "Additional metadata for the seat (max 10 keys, 1KB total)",
    }),
  ),
  immediate_claim: Type.Optional(
    Type.Boolean({
      default: false,
      description: "If true, the seat will be immediately claimed without sending an invitation email. API-only feature.",
    }),
  ),
};

export const SeatAssign = Type.Object(seatAssignFields, { title: "SeatAssign" });
export type SeatAssign = Static<typeof SeatAssign>;

export const CustomerSeatAssign = Type.Object(
  {
    ...seatAssignFields,
    checkout_id: NullableUuid("Checkout ID. Resolves to the subscription or order produced by the checkout."),
  },
  { title: "CustomerSeatAssign" },
);
export type CustomerSeatAssign = Static<typeof CustomerSeatAssign>;

export const SeatsList = Type.Object(
  {
    seats: Type.Array(CustomerSeat, { description: "List of seats" }),
    available_seats: Type.Integer({ description: "Number of available seats" }),
    total_seats: Type.Integer({ description: "Total number of seats for the subscription" }),
  },
  { title: "SeatsList" },
);
export type SeatsList = Static<typeof SeatsList>;

export const SeatsListQuery = Type.Object({
  subscription_id: NullableUuid("Subscription ID"),
  order_id: NullableUuid("Order ID"),
});
export type SeatsListQuery = Static<typeof SeatsListQuery>;

export const SeatParams = Type.Object({ seat_id: Uuid4({ description: "The seat ID." }) });

/** Tokens are 43 characters; a bound keeps a pasted page out of the hash. */
const TOKEN_MAX = 256;

export const InvitationTokenParams = Type.Object({
  invitation_token: Type.String({ minLength: 1, maxLength: TOKEN_MAX, description: "The invitation token." }),
});

export const SeatClaim = Type.Object(
  { invitation_token: Type.String({ minLength: 1, maxLength: TOKEN_MAX, description: "Invitation token to claim the seat" }) },
  { title: "SeatClaim" },
);
export type SeatClaim = Static<typeof SeatClaim>;

export const SeatClaimInfo = Type.Object(
  {
    product_name: Type.String({ description: "Name of the product" }),
    product_id: Uuid4({ description: "ID of the product" }),
    organization_name: Type.String({ description: "Name of the organization" }),
    organization_slug: Type.String({ description: "Slug of the organization" }),
    customer_email: Type.String({ description: "Email of the customer assigned to this seat" }),
    can_claim: Type.Boolean({ description: "Whether the seat can be claimed" }),
  },
  { title: "SeatClaimInfo", description: "Read-only information about a seat claim invitation; fetching it changes nothing." },
);
export type SeatClaimInfo = Static<typeof SeatClaimInfo>;

export const CustomerSeatClaimResponse = Type.Object(
  {
    seat: CustomerSeat,
    customer_session_token: Type.String({ description: "Session token for immediate customer portal access" }),
  },
  { title: "CustomerSeatClaimResponse", description: "Response after successfully claiming a seat." },
);
export type CustomerSeatClaimResponse = Static<typeof CustomerSeatClaimResponse>;
