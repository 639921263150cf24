/**
 * What this module offers other modules and the flows: operations run on the caller's executor,
 * inside its transaction, and the rules they share. Other modules import this file, never the
 * module's repositories or services (docs/architecture.md, "Who may import whom").
 */
export { licenseKeyActions } from "./license-key-actions.routes.ts";
export { keysByIds, setKeyStatus } from "./license-keys.repository.ts";
export { applyLicenseKeyTerms, issueLicenseKey, type LicenseKeyService } from "./license-keys.service.ts";

// A seller's change of a key (flows/update-license-key.ts).
export { changeLicenseKey, licenseKeyRead } from "./license-keys.service.ts";

// Activations silent past their heartbeat grace (flows/cull-silent-activations.ts).
export { keysWithSilentActivations } from "./license-keys.repository.ts";
export { cullSilentActivations } from "./license-key-heartbeats.service.ts";

// Signed license files (an extension), issued by the portal's public route too.
export { LICENSE_FILE_TAG } from "./license-files.routes.ts";
export type { LicenseFileService } from "./license-files.service.ts";
