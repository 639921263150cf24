import { Type, type SchemaOptions, type TSchema } from "@sinclair/typebox";

/** Page-number pagination as the reference does it: `page`/`limit` in, `{items, pagination}` out. */

export const MAX_PAGE_LIMIT = 100;

export const PageQueryFields = {
  page: Type.Integer({ exclusiveMinimum: 0, default: 1, description: "Page number, defaults to 1." }),
  limit: Type.Integer({ exclusiveMinimum: 0, default: 10, description: "Size of a page, defaults to 10. Maximum is 100." }),
};

export const Pagination = Type.Object(
  { total_count: Type.Integer(), max_page: Type.Integer() },
  { title: "Pagination" },
);

export const ListResource = <T extends TSchema>(item: T, options: SchemaOptions & { title: string }) =>
  Type.Object({ items: Type.Array(item), pagination: Pagination }, options);

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** The anchor clamps an oversized limit rather than refusing it. */
export function pageOf(query: { page: number; limit: number }): Page {
  const limit = Math.min(query.limit, MAX_PAGE_LIMIT);
  // A page far past the end is just empty; keep the offset an integer PostgreSQL accepts.
  return { limit, offset: Math.min((query.page - 1) * limit, Number.MAX_SAFE_INTEGER) };
}

export function listResource<T>(items: T[], totalCount: number, page: Page) {
  return { items, pagination: { total_count: totalCount, max_page: Math.ceil(totalCount / page.limit) } };
}
