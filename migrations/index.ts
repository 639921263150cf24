import type { Migration } from "kysely";
import * as foundation from "./2026-11-22T0001_foundation.ts";
import * as webhookEvents from "./2026-11-22T0002_webhook_events.ts";
import * as catalog from "./2026-11-22T0030_catalog.ts";
import * as checkoutLifecycle from "./2026-11-22T0040_checkout_lifecycle.ts";
import * as events from "./2026-11-22T0010_events.ts";
import * as webhooks from "./2026-11-22T0020_webhooks.ts";
import * as orderDocuments from "./2026-11-22T0050_order_documents.ts";
import * as orderListIndexes from "./2026-11-22T0051_order_list_indexes.ts";
import * as workerLeases from "./2026-11-22T0065_worker_leases.ts";

/** Every migration, in order. Listed statically so they run the same under tsx, vitest and bundlers. */
export const migrations: Record<string, Migration> = {
  "2026-11-22T0001_foundation": foundation,
  "2026-11-22T0002_webhook_events": webhookEvents,
  "2026-11-22T0030_catalog": catalog,
  "2026-11-22T0040_checkout_lifecycle": checkoutLifecycle,
  "2026-11-22T0010_events": events,
  "2026-11-22T0020_webhooks": webhooks,
  "2026-11-22T0050_order_documents": orderDocuments,
  "2026-11-22T0051_order_list_indexes": orderListIndexes,
  "2026-11-22T0065_worker_leases": workerLeases,
};
