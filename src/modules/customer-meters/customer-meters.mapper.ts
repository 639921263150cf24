import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { toCustomer, type CustomerReadRow } from "../customers/customers.mapper.ts";
import { toMeter } from "../meters/meters.mapper.ts";
import type { MeterRow } from "../meters/meters.table.ts";
import type { CustomerCustomerMeter, CustomerMeter } from "./customer-meters.schemas.ts";
import type { CustomerMeterRow } from "./customer-meters.table.ts";

/** A customer meter with what its read computed: consumed units from the buckets, the balance. */
export interface CustomerMeterUnits {
  row: CustomerMeterRow;
  meter: MeterRow;
  customer: CustomerReadRow;
  consumed: number;
}

/** The fields every view shares (the state's view is exactly these). */
export const toCustomerMeterUnits = ({ row, consumed }: CustomerMeterUnits) => {
  const credited = row.credited_units;
  return {
    id: row.id,
    created_at: toIso(row.created_at),
    modified_at: toIsoOrNull(row.modified_at),
    meter_id: row.meter_id,
    consumed_units: consumed,
    credited_units: credited,
    balance: credited - consumed,
  };
};

export const toCustomerMeter = (units: CustomerMeterUnits): CustomerMeter => ({
  ...toCustomerMeterUnits(units),
  customer_id: units.row.customer_id,
  customer: toCustomer(units.customer),
  meter: toMeter(units.meter),
});

export const toCustomerCustomerMeter = (units: CustomerMeterUnits): CustomerCustomerMeter => ({
  ...toCustomerMeterUnits(units),
  customer_id: units.row.customer_id,
  meter: {
    created_at: toIso(units.meter.created_at),
    modified_at: toIsoOrNull(units.meter.modified_at),
    id: units.meter.id,
    name: units.meter.name,
  },
});
