import { Type, type Static } from "@sinclair/typebox";
import { ListResource, OneOrMany, PaginationQuery, SortingQuery } from "../../schema/pagination.ts";
import { IdField, TimestampedFields, Uuid4 } from "../../schema/primitives.ts";
import { Customer } from "../customers/customers.schemas.ts";
import { Meter } from "../meters/meters.schemas.ts";

/** What every view of a customer meter carries: the meter, the units consumed and credited, the balance. */
const unitFields = {
  meter_id: Uuid4({ description: "The ID of the meter." }),
  consumed_units: Type.Number({ description: "The number of consumed units." }),
  credited_units: Type.Integer({ description: "The number of credited units." }),
  balance: Type.Number({ description: "The balance of the meter: credited minus consumed units." }),
};

export const CustomerMeter = Type.Object(
  {
    ...IdField,
    ...TimestampedFields,
    customer_id: Uuid4({ description: "The ID of the customer." }),
    ...unitFields,
    customer: Customer,
    meter: Meter,
  },
  { title: "CustomerMeter", description: "An active customer meter, with current consumed and credited units." },
);
export type CustomerMeter = Static<typeof CustomerMeter>;
export const ListResourceCustomerMeter = ListResource(CustomerMeter, { title: "ListResource[CustomerMeter]" });

export const CustomerCustomerMeterMeter = Type.Object(
  { ...TimestampedFields, ...IdField, name: Type.String({ description: "The name of the meter." }) },
  { title: "CustomerCustomerMeterMeter" },
);

/** The portal's view: the meter's name only. */
export const CustomerCustomerMeter = Type.Object(
  {
    ...IdField,
    ...TimestampedFields,
    customer_id: Uuid4({ description: "The ID of the customer." }),
    ...unitFields,
    meter: CustomerCustomerMeterMeter,
  },
  { title: "CustomerCustomerMeter" },
);
export type CustomerCustomerMeter = Static<typeof CustomerCustomerMeter>;
export const ListResourceCustomerCustomerMeter = ListResource(CustomerCustomerMeter, { title: "ListResource[CustomerCustomerMeter]" });

const PortalSortKeys = ["created_at", "modified_at", "meter_id", "meter_name", "consumed_units", "credited_units", "balance"] as const;
export const CustomerMeterSortKeys = [...PortalSortKeys, "customer_id", "customer_name"] as const;
export type CustomerMeterSortKey = (typeof CustomerMeterSortKeys)[number];

const meterIdFilter = OneOrMany(Uuid4(), "Filter by meter ID.", { listOnly: true });

export const CustomerMeterListQuery = Type.Object({
  organization_id: OneOrMany(Uuid4(), "Filter by organization ID.", { listOnly: true }),
  customer_id: OneOrMany(Uuid4(), "Filter by customer ID.", { listOnly: true }),
  external_customer_id: OneOrMany(Type.String({ maxLength: 256 }), "Filter by external customer ID.", { listOnly: true }),
  meter_id: meterIdFilter,
  ...PaginationQuery,
  sorting: SortingQuery(CustomerMeterSortKeys, ["-modified_at"], {}, { title: "CustomerMeterSortProperty" }),
});
export type CustomerMeterListQuery = Static<typeof CustomerMeterListQuery>;

export const PortalCustomerMeterListQuery = Type.Object({
  meter_id: meterIdFilter,
  query: Type.Optional(Type.String({ maxLength: 256, description: "Filter by meter name." })),
  ...PaginationQuery,
  sorting: SortingQuery(PortalSortKeys, ["-modified_at"], {}, { title: "CustomerCustomerMeterSortProperty" }),
});
export type PortalCustomerMeterListQuery = Static<typeof PortalCustomerMeterListQuery>;
