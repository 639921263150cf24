// The event reads other modules run inside their own statements.

export { earliestUserEventAt } from "./events.repository.ts";
export { eventIngestedSince, eventRows, ingestedAtAfter, organizationHasEventsBefore } from "./ingested-events.repository.ts";
