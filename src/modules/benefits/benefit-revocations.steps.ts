// The benefit revocations other modules' flows run in their transaction (a refund revoking a one-time
// order's grants, a customer's deletion revoking all of its own).
export { revokeCustomerBenefits, revokeOrderBenefits } from "./benefit-grants.service.ts";

// A seller's change of a license key's status reaching the grant that issued it (flows/update-license-key.ts).
export { syncLicenseKeyGrant } from "./benefit-grants.service.ts";

// A license key's silent activations culled (flows/cull-silent-activations.ts).
export { licenseKeyGrantUpdated } from "./benefit-grants.service.ts";
