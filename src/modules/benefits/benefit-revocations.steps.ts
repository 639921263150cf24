// The benefit revocations other modules' flows run in their transaction (a refund revoking a one-time order's grants).
export { revokeOrderBenefits } from "./benefit-grants.service.ts";
