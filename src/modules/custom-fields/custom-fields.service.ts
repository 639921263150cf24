import type { Deps } from "../../context.ts";
import type { OrganizationScope, Principal } from "../../http/auth.ts";
import { ResourceNotFound, valueError } from "../../http/errors.ts";
import { paginate, parseSorting, type Page } from "../../schema/pagination.ts";
import { uniqueViolation } from "../../http/pg-errors.ts";
import { targetOrganization } from "../organizations/organizations.steps.ts";
import type {
  CustomFieldCreate,
  CustomFieldListQuery,
  CustomFieldPropertiesInput,
  CustomFieldUpdate,
} from "./custom-field-inputs.schemas.ts";
import { toCustomField } from "./custom-fields.mapper.ts";
import * as repo from "./custom-fields.repository.ts";
import type { CustomField } from "./custom-fields.schemas.ts";
import type { CustomFieldType, StoredCustomFieldProperties } from "./custom-fields.table.ts";

const SLUG_TAKEN = "Custom field with this slug already exists.";
const SLUG_INDEX = "custom_fields_org_slug_uq";

const slugTaken = (slug: string) => valueError(["body", "slug"], SLUG_TAKEN, slug);

/** The properties as stored: null and empty values dropped, a number's bounds in order. */
function storedProperties(type: CustomFieldType, input: CustomFieldPropertiesInput): StoredCustomFieldProperties {
  const kept: StoredCustomFieldProperties = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== ""));
  if (type === "number" && kept.ge !== undefined && kept.le !== undefined && kept.le < kept.ge) {
    throw valueError(["body", "properties"], "Greater than or equal (ge) must be less than or equal to Less than or equal (le)", input);
  }
  return kept;
}

/** Two writers racing for one slug: the unique index decides, the loser gets the same 422. */
async function guardSlugRace<T>(slug: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (uniqueViolation(error) === SLUG_INDEX) throw slugTaken(slug);
    throw error;
  }
}

export function createCustomFieldService(deps: Deps) {
  return {
    async create(principal: Principal, input: CustomFieldCreate): Promise<CustomField> {
      const properties = storedProperties(input.type, input.properties);
      const organization = await targetOrganization(deps.db, principal, input.organization_id);
      if (await repo.findCustomFieldBySlug(deps.db, organization.id, input.slug)) throw slugTaken(input.slug);
      const row = await guardSlugRace(input.slug, () =>
        repo.insertCustomField(deps.db, {
          organization_id: organization.id,
          created_at: deps.now(),
          modified_at: null,
          deleted_at: null,
          type: input.type,
          slug: input.slug,
          name: input.name,
          properties: JSON.stringify(properties),
          metadata: JSON.stringify(input.metadata ?? {}),
        }),
      );
      return toCustomField(row);
    },

    async get(id: string, allowed: OrganizationScope): Promise<CustomField> {
      const row = await repo.findCustomField(deps.db, id, allowed);
      if (!row) throw new ResourceNotFound();
      return toCustomField(row);
    },

    async list(query: CustomFieldListQuery, allowed: OrganizationScope): Promise<Page<CustomField>> {
      const filters = { organizationIds: query.organization_id ?? null, query: query.query, types: query.type ?? null };
      const sorting = parseSorting(query.sorting);
      return paginate(
        query,
        () => repo.countCustomFields(deps.readDb, allowed, filters),
        async (offset, limit) => (await repo.listCustomFields(deps.readDb, allowed, filters, sorting, offset, limit)).map(toCustomField),
      );
    },

    /** A new slug is also the new key of the values already stored under the old one. */
    async update(id: string, input: CustomFieldUpdate, allowed: OrganizationScope): Promise<CustomField> {
      const slug = input.slug ?? null;
      const row = await guardSlugRace(slug ?? "", () =>
        deps.db.transaction().execute(async (trx) => {
          const current = await repo.findCustomFieldForUpdate(trx, id, allowed);
          if (!current) throw new ResourceNotFound();
          if (input.type !== current.type) throw valueError(["body", "type"], "The type of a custom field can't be changed.", input.type);
          const properties = input.properties ? storedProperties(current.type, input.properties) : null;
          const renamed = slug !== null && slug !== current.slug;
          if (renamed && (await repo.findCustomFieldBySlug(trx, current.organization_id, slug))) throw slugTaken(slug);
          const updated = await repo.updateCustomField(trx, current.id, {
            modified_at: deps.now(),
            ...(input.name ? { name: input.name } : {}),
            ...(renamed ? { slug } : {}),
            ...(properties ? { properties: JSON.stringify(properties) } : {}),
            ...(input.metadata !== undefined ? { metadata: JSON.stringify(input.metadata) } : {}),
          });
          if (renamed) await repo.renameStoredValues(trx, current.organization_id, current.slug, slug);
          return updated;
        }),
      );
      return toCustomField(row);
    },

    /** Soft-deletes the field and detaches it from every product; stored values stay as they are. */
    async delete(id: string, allowed: OrganizationScope): Promise<void> {
      await deps.db.transaction().execute(async (trx) => {
        const current = await repo.findCustomFieldForUpdate(trx, id, allowed);
        if (!current) throw new ResourceNotFound();
        await repo.deleteCustomField(trx, current.id, deps.now());
      });
    },
  };
}
export type CustomFieldService = ReturnType<typeof createCustomFieldService>;
