import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Address, AddressInput } from "../../schema/address.ts";
import { PaginationQuery, ListResource, MetadataQuery, OneOrMany, SortingQuery, CATALOG_SORTING } from "../../schema/pagination.ts";
import { DateTime, MetadataInput, MetadataOutput, Nullable, StringEnum, Uuid4 } from "../../schema/primitives.ts";
import { TaxIdFormat } from "../../adapters/tax-engine/tax-id.ts";

export const CustomerTypeValues = ["individual", "team"] as const;
export const CustomerType = StringEnum(CustomerTypeValues, { title: "CustomerType" });
export type CustomerType = Static<typeof CustomerType>;

// Bounds the reference leaves open; see docs/decisions.md ("String bounds").
export const EMAIL_MAX = 320;
export const EXTERNAL_ID_MAX = 256;
const LOCALE_MAX = 64;
const TAX_ID_MAX = 64;

/** The fields every customer shape shares (the customer itself, its state), given its `email` schema. */
export const customerFields = <E extends TSchema>(email: E) => ({
  id: Uuid4({ description: "The ID of the customer." }),
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
  metadata: MetadataOutput(),
  // Optional in the reference's required list, though always emitted here.
  external_id: Type.Optional(Nullable(Type.String(), { description: "The customer's ID in your system; unique per organization." })),
  email,
  email_verified: Type.Boolean({ description: "Whether the email address was verified." }),
  name: Nullable(Type.String(), { description: "Name of the customer." }),
  billing_name: Nullable(Type.String(), { description: "Name used on invoices." }),
  billing_address: Nullable(Address),
  tax_id: Nullable(Type.Tuple([Type.String(), TaxIdFormat]), { description: "Normalized tax ID and its format." }),
  locale: Type.Optional(Nullable(Type.String())),
  organization_id: Uuid4({ description: "ID of the organization owning the customer." }),
  default_payment_method_id: Type.Optional(Nullable(Uuid4())),
  deleted_at: Nullable(DateTime(), { description: "Deletion timestamp of the customer." }),
  first_user_event_at: Nullable(DateTime(), { description: "Time of the customer's first usage event." }),
  avatar_url: Nullable(Type.String()),
});

export const CustomerIndividual = Type.Object(
  { ...customerFields(Type.String({ description: "Email address of the customer." })), type: Type.Literal("individual") },
  { title: "CustomerIndividual", description: "An individual customer." },
);
export const CustomerTeam = Type.Object(
  {
    ...customerFields(Type.Optional(Nullable(Type.String(), { description: "Email address of the customer." }))),
    type: Type.Literal("team"),
  },
  { title: "CustomerTeam", description: "A team customer, billed as one." },
);

/** A customer, discriminated by `type`. */
export const Customer = Type.Union([CustomerIndividual, CustomerTeam], { title: "Customer" });
export type Customer = Static<typeof Customer>;

const Email = (options: { description?: string } = {}) => Type.String({ format: "email", maxLength: EMAIL_MAX, ...options });

const MemberOwnerCreate = Type.Object(
  {
    email: Email(),
    name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX }))),
  },
  { title: "MemberOwnerCreate", description: "The owner member created with the customer when the organization has members." },
);

const createFields = {
  metadata: Type.Optional(MetadataInput()),
  external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX }))),
  name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  billing_address: Type.Optional(Nullable(AddressInput)),
  tax_id: Type.Optional(Nullable(Type.String({ maxLength: TAX_ID_MAX }))),
  locale: Type.Optional(Nullable(Type.String({ maxLength: LOCALE_MAX }))),
  organization_id: Type.Optional(Nullable(Uuid4({ description: "Owning organization; required with a personal token." }))),
  owner: Type.Optional(Nullable(MemberOwnerCreate)),
};

export const CustomerIndividualCreate = Type.Object(
  { ...createFields, type: Type.Optional(Type.Literal("individual", { default: "individual" })), email: Email() },
  { title: "CustomerIndividualCreate" },
);
export const CustomerTeamCreate = Type.Object(
  { ...createFields, type: Type.Literal("team"), email: Type.Optional(Nullable(Email())) },
  { title: "CustomerTeamCreate" },
);
export const CustomerCreate = Type.Union([CustomerIndividualCreate, CustomerTeamCreate], { title: "CustomerCreate" });
export type CustomerCreate = Static<typeof CustomerCreate>;

export const CustomerUpdate = Type.Object(
  {
    metadata: Type.Optional(MetadataInput()),
    email: Type.Optional(Nullable(Email())),
    name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    billing_address: Type.Optional(Nullable(AddressInput)),
    tax_id: Type.Optional(Nullable(Type.String({ maxLength: TAX_ID_MAX }))),
    locale: Type.Optional(Nullable(Type.String({ maxLength: LOCALE_MAX }))),
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX }))),
    type: Type.Optional(Nullable(CustomerType)),
  },
  { title: "CustomerUpdate" },
);
export type CustomerUpdate = Static<typeof CustomerUpdate>;

/** The update by external ID: the same fields less the two that name or type the customer. */
export const CustomerUpdateExternalId = Type.Omit(CustomerUpdate, ["external_id", "type"], { title: "CustomerUpdateExternalID" });
export type CustomerUpdateExternalId = Static<typeof CustomerUpdateExternalId>;

export const CustomerDeleteQuery = Type.Object({
  anonymize: Type.Boolean({
    default: false,
    description: "If true, also anonymize the customer's personal data for GDPR compliance.",
  }),
});
export type CustomerDeleteQuery = Static<typeof CustomerDeleteQuery>;

export const CustomerSortKeys = ["created_at", "email", "name"] as const;
export const CustomerListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  email: Type.Optional(Type.String({ maxLength: EMAIL_MAX, description: "Filter by exact email (case-insensitive)." })),
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by name, email or external ID." })),
  active: Type.Optional(
    Type.Boolean({
      description: "Filter by active customers, i.e. customers with at least one trialing, active or past_due subscription.",
    }),
  ),
  metadata: MetadataQuery(),
  ...PaginationQuery,
  sorting: SortingQuery(CustomerSortKeys, ["-created_at"], CATALOG_SORTING, { title: "CustomerSortProperty" }),
});
export type CustomerListQuery = Static<typeof CustomerListQuery>;

export const CustomerExportQuery = Type.Object({ organization_id: OneOrMany(Uuid4(), "Filter by organization ID.") });
export type CustomerExportQuery = Static<typeof CustomerExportQuery>;

export const ListResourceCustomer = ListResource(Customer, { title: "ListResource[Customer]" });
export type ListResourceCustomer = Static<typeof ListResourceCustomer>;

export const ExternalIdParams = Type.Object({
  external_id: Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX, description: "The customer's external ID." }),
});
