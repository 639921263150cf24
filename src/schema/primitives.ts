import { Type, type TSchema, type Static, type SchemaOptions } from "@sinclair/typebox";

/** Shared schema primitives: every resource schema composes these so that the wire format is uniform. */

export const Uuid4 = (options: SchemaOptions = {}) => Type.String({ format: "uuid4", ...options });

export const DateTime = (options: SchemaOptions = {}) => Type.String({ format: "date-time", ...options });

/** `T or null`: always present on the wire, may be null. */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });

/** Metadata values as the reference emits them: string, integer, number or boolean. */
export const MetadataOutput = (options: SchemaOptions = {}) =>
  Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Number(), Type.Boolean()]), {
    description: "Key-value object allowing you to store additional information.",
    ...options,
  });

/** Metadata accepted on input: at most 50 keys of 1–40 characters; strings of at most 500 characters. */
export const MetadataInput = (options: SchemaOptions = {}) =>
  Type.Record(
    Type.String({ minLength: 1, maxLength: 40 }),
    Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Integer(), Type.Number(), Type.Boolean()]),
    { maxProperties: 50, propertyNames: { minLength: 1, maxLength: 40 }, ...options },
  );
export type MetadataValue = string | number | boolean;
export type Metadata = Record<string, MetadataValue>;

export const TimestampedFields = {
  created_at: DateTime({ description: "Creation timestamp of the object." }),
  modified_at: Nullable(DateTime(), { description: "Last modification timestamp of the object." }),
};

export const IdField = { id: Uuid4({ description: "The ID of the object." }) };

export const RecurringIntervalValues = ["day", "week", "month", "year"] as const;
export type RecurringInterval = (typeof RecurringIntervalValues)[number];
export const RecurringInterval = (options: SchemaOptions = {}) => StringEnum(RecurringIntervalValues, options);

export const IdParams = Type.Object({ id: Uuid4({ description: "The ID of the object." }) });
export type IdParams = Static<typeof IdParams>;

export const toIso = (value: Date): string => value.toISOString();
export const toIsoOrNull = (value: Date | null): string | null => (value === null ? null : value.toISOString());
