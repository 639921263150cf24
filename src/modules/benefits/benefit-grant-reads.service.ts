import type { Deps } from "../../context.ts";
import type { Db, Executor } from "../../db/database.ts";
import type { OrganizationScope } from "../../http/auth.ts";
import { asList, pageWindow, parseSorting, toPage, type Page, type PageRequest } from "../../schema/pagination.ts";
import { toBenefitGrant } from "./benefit-grants.mapper.ts";
import * as repo from "./benefit-grants.repository.ts";
import { ResourceNotFound } from "../../http/errors.ts";
import type { BenefitGrant, BenefitGrantListQuery, BenefitGrantsOfBenefitQuery } from "./benefit-grants.schemas.ts";
import { findBenefit } from "./benefits.repository.ts";

/** One page of grants, its count and rows read in one snapshot, each row presented by the caller's view. */
export async function pageGrants<T>(
  db: Db,
  filter: repo.GrantFilter,
  query: PageRequest & { sorting?: readonly (repo.GrantOrdering | `-${repo.GrantOrdering}`)[] },
  present: (db: Executor, rows: repo.GrantEmbeddedRow[]) => Promise<T[]>,
): Promise<Page<T>> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const total = await repo.countGrants(trx, filter);
      const rows = await repo.pageGrantsEmbedded(trx, filter, parseSorting(query.sorting), pageWindow(query));
      return toPage(await present(trx, rows), total, query);
    });
}

/** The organization's reads of its customers' grants. */
export function createBenefitGrantService(deps: Deps) {
  return {
    async list(query: BenefitGrantListQuery, allowed: OrganizationScope): Promise<Page<BenefitGrant>> {
      const filter: repo.GrantFilter = {
        allowed,
        organizationIds: asList(query.organization_id),
        customerIds: asList(query.customer_id),
        externalCustomerIds: asList(query.external_customer_id),
        isGranted: query.is_granted,
      };
      return pageGrants(deps.readDb, filter, query, async (_db, rows) => rows.map(toBenefitGrant));
    },

    /** One benefit's grants, newest first; an unknown benefit, or another organization's, answers 404. */
    async ofBenefit(benefitId: string, query: BenefitGrantsOfBenefitQuery, allowed: OrganizationScope): Promise<Page<BenefitGrant>> {
      if (!(await findBenefit(deps.db, benefitId, allowed))) throw new ResourceNotFound();
      const filter: repo.GrantFilter = {
        allowed,
        benefitId,
        customerIds: asList(query.customer_id),
        memberIds: asList(query.member_id),
        isGranted: query.is_granted,
      };
      return pageGrants(deps.db, filter, { ...query, sorting: ["-created_at"] }, async (_db, rows) => rows.map(toBenefitGrant));
    },
  };
}
export type BenefitGrantService = ReturnType<typeof createBenefitGrantService>;
