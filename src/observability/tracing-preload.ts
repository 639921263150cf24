import { loadEnvFile } from "../env-file.ts";
import { startTracing } from "./tracing.ts";

/**
 * Imported first by the entry points, so tracing is started before the application's modules
 * run. `.env` is read here already, for the `OTEL_*` variables it may hold.
 */
loadEnvFile();
export const tracing = startTracing();
