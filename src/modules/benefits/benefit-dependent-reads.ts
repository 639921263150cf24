import type { Executor } from "../../db/database.ts";

/**
 * What benefits read of the modules built on them (meters). Those modules import benefits, so
 * benefits cannot import their steps: it declares what it needs here, and the composition root
 * (services.ts) binds their steps once for the process, before any benefit is created.
 */
export interface BenefitDependentReads {
  /** Whether the organization has this meter (a meter-credit benefit's). */
  meterExists: (db: Executor, organizationId: string, meterId: string) => Promise<boolean>;
}

let bound: BenefitDependentReads | undefined;

/** Called once, by the composition root. */
export function bindBenefitDependentReads(reads: BenefitDependentReads): void {
  bound = reads;
}

/** The bound reads; a benefit's read of another module before the composition root ran is a wiring mistake. */
export function benefitDependentReads(): BenefitDependentReads {
  if (!bound) throw new Error("benefits read before services.ts bound their dependent reads");
  return bound;
}
