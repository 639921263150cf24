import { Type, type SchemaOptions, type TSchema } from "@sinclair/typebox";
import { RecurringIntervalValues, StringEnum, Uuid4 } from "./primitives.ts";

/** Object keyed by UUID strings. */
export const UuidRecord = <T extends TSchema>(value: T, options: SchemaOptions = {}) =>
  Type.Record(Type.String(), value, { propertyNames: Uuid4(), ...options });

/** Decimal number carried as a string so that sub-cent precision survives JSON. */
export const DecimalString = (options: SchemaOptions = {}) => Type.String({ pattern: "^[+-]?(?:\\d+\\.?\\d*|\\.\\d+)$", ...options });

export const TrialIntervalValues = RecurringIntervalValues;
export const TrialInterval = (options: SchemaOptions = {}) => StringEnum(TrialIntervalValues, { title: "TrialInterval", ...options });

export const TaxBehaviorOptionValues = ["location", "inclusive", "exclusive"] as const;
export type TaxBehaviorOption = (typeof TaxBehaviorOptionValues)[number];
export const TaxBehaviorOption = (options: SchemaOptions = {}) =>
  StringEnum(TaxBehaviorOptionValues, { title: "TaxBehaviorOption", ...options });
