import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Uuid4 } from "../../schema/primitives.ts";

/** An organization's sandbox clock. Beyond the reference (Stripe has test clocks): no SDK model. */
export const TestClock = Type.Object(
  {
    organization_id: Uuid4(),
    now: DateTime({ description: "The organization's current time." }),
    offset_seconds: Type.Number({ description: "How far the organization's time is ahead of real time." }),
  },
  { title: "TestClock" },
);
export type TestClock = Static<typeof TestClock>;

export const TestClockAdvanced = Type.Object(
  {
    ...TestClock.properties,
    renewals: Type.Integer({ description: "Renewals, trial conversions, resumes and period-end cancellations run on the way." }),
    payment_retries: Type.Integer({ description: "Dunning retries run on the way." }),
    expired_checkouts: Type.Integer({ description: "Checkout sessions that expired on the way." }),
  },
  { title: "TestClockAdvanced" },
);
export type TestClockAdvanced = Static<typeof TestClockAdvanced>;

const OrganizationId = Type.Optional(Uuid4({ description: "The organization; required with a personal access token." }));

export const TestClockQuery = Type.Object({ organization_id: OrganizationId });
export type TestClockQuery = Static<typeof TestClockQuery>;

/** Forward only: a later date-time, or a number of seconds (at most ten years). */
export const TestClockAdvance = Type.Union(
  [
    Type.Object({ to: DateTime(), organization_id: OrganizationId }, { additionalProperties: false }),
    Type.Object(
      { seconds: Type.Integer({ minimum: 1, maximum: 10 * 366 * 24 * 3600 }), organization_id: OrganizationId },
      { additionalProperties: false },
    ),
  ],
  { title: "TestClockAdvance" },
);
export type TestClockAdvance = Static<typeof TestClockAdvance>;
