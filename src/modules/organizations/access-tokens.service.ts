import type { Deps } from "../../context.ts";
import type { Principal, TokenAuthenticator } from "../../http/auth.ts";
import { durationToMilliseconds } from "../../values/duration.ts";
import { RequestValidationError, ResourceNotFound, fieldIssue } from "../../http/errors.ts";
import { toIso, toIsoOrNull } from "../../schema/primitives.ts";
import { TokenPrefix, generateToken, hasValidChecksum, hashToken } from "../../values/tokens.ts";
import * as repo from "./organizations.repository.ts";
import { paginate, type Page } from "../../schema/pagination.ts";
import type { OrganizationAccessTokenRow } from "./organizations.table.ts";
import type {
  OrganizationAccessToken,
  OrganizationAccessTokenCreate,
  OrganizationAccessTokenCreateResponse,
  OrganizationAccessTokenListQuery,
} from "./access-tokens.schemas.ts";

const toToken = (row: OrganizationAccessTokenRow): OrganizationAccessToken => ({
  id: row.id,
  created_at: toIso(row.created_at),
  modified_at: toIsoOrNull(row.modified_at),
  scopes: row.scopes,
  expires_at: toIsoOrNull(row.expires_at),
  comment: row.comment,
  last_used_at: toIsoOrNull(row.last_used_at),
  organization_id: row.organization_id,
});

export function createAccessTokenService(deps: Deps) {
  const hash = (token: string) => hashToken(deps.secret, token);

  return {
    /** The instance owner creates a token for one organization; the raw token is returned once. */
    async createOrganizationToken(input: OrganizationAccessTokenCreate): Promise<OrganizationAccessTokenCreateResponse> {
      if (!input.organization_id) {
        throw new RequestValidationError([
          fieldIssue(["body", "organization_id"], "organization_id is required.", input.organization_id ?? null, "missing"),
        ]);
      }
      let expiresAt: Date | null = null;
      if (input.expires_in) {
        const ms = durationToMilliseconds(input.expires_in);
        if (ms === null) {
          const message = "Input should be a positive duration in weeks, days, hours, minutes or seconds";
          throw new RequestValidationError([fieldIssue(["body", "expires_in"], message, input.expires_in, "time_delta_parsing")]);
        }
        expiresAt = new Date(deps.now().getTime() + ms);
      }
      const organization = await repo.findOrganization(deps.db, input.organization_id, null);
      if (!organization) throw new ResourceNotFound("Organization not found.");
      const token = generateToken(TokenPrefix.organizationAccess);
      const row = await repo.insertOrganizationAccessToken(deps.db, {
        organization_id: organization.id,
        comment: input.comment,
        token_hash: hash(token),
        scopes: [...new Set(input.scopes)],
        expires_at: expiresAt,
      });
      return { token, organization_access_token: toToken(row) };
    },

    /** The organization's tokens not revoked; 404 for an unknown organization. */
    async listOrganizationTokens(query: OrganizationAccessTokenListQuery): Promise<Page<OrganizationAccessToken>> {
      if (!(await repo.findOrganization(deps.readDb, query.organization_id, null))) throw new ResourceNotFound("Organization not found.");
      return paginate(
        query,
        () => repo.countOrganizationTokens(deps.readDb, query.organization_id),
        async (offset, limit) => (await repo.listOrganizationTokens(deps.readDb, query.organization_id, offset, limit)).map(toToken),
      );
    },

    /** Revokes a token: refused from then on (after the principal cache's few seconds); 404 when unknown or revoked. */
    async revokeOrganizationToken(id: string): Promise<void> {
      if (!(await repo.revokeOrganizationToken(deps.db, id, deps.now())))
        throw new ResourceNotFound("Organization access token not found.");
    },

    /** Bearer-token resolvers by prefix, for the auth layer. */
    authenticators(): Map<string, TokenAuthenticator> {
      const organizationToken = async (token: string): Promise<Principal | null> => {
        if (!hasValidChecksum(token, TokenPrefix.organizationAccess)) return null;
        const row = await repo.findLiveOrganizationToken(deps.db, hash(token), deps.now());
        return row
          ? {
              kind: "organization",
              tokenId: row.id,
              organizationId: row.organization_id,
              scopes: new Set(row.scopes),
              clockOffsetMs: row.clock_offset_ms,
            }
          : null;
      };
      const personalToken = async (token: string): Promise<Principal | null> => {
        const row = await repo.findLivePersonalToken(deps.db, hash(token));
        return row ? { kind: "user", tokenId: row.id, scopes: "all" } : null;
      };
      return new Map([
        [TokenPrefix.organizationAccess, organizationToken],
        [TokenPrefix.personalAccess, personalToken],
      ]);
    },

    /**
     * The owner's personal token: ADMIN_TOKEN when set; otherwise one is generated on the first
     * start only and handed back so the caller can show it once.
     */
    async ensureOwnerToken(adminToken: string | undefined): Promise<{ generated: string | null }> {
      if (adminToken) {
        await repo.insertPersonalToken(deps.db, hash(adminToken), "ADMIN_TOKEN");
        return { generated: null };
      }
      if ((await repo.countPersonalTokens(deps.db)) > 0) return { generated: null };
      const token = generateToken(TokenPrefix.personalAccess);
      await repo.insertPersonalToken(deps.db, hash(token), "generated on first start");
      return { generated: token };
    },
  };
}
export type AccessTokenService = ReturnType<typeof createAccessTokenService>;
