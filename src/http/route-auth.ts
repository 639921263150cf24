import { Type, type TSchema } from "@sinclair/typebox";
import type { MemberRole, RouteAuth, PrincipalKind } from "./auth.ts";
import { ErrorBody, ValidationErrorBody } from "./errors.ts";

/** Principal kinds of organization-side routes and of customer-portal routes. */
export const ORGANIZATION_SIDE: readonly PrincipalKind[] = ["user", "organization"];
export const PORTAL_SIDE: readonly PrincipalKind[] = ["customer", "member"];

export const requireAuth = (kinds: readonly PrincipalKind[], scopes: readonly string[]): { auth: RouteAuth } => ({
  auth: { kinds, scopes },
});

/** The member roles that manage a customer's billing (and, in the portal, its team). */
export const BILLING_ROLES: readonly MemberRole[] = ["owner", "billing_manager"];

/**
 * A portal route of the billing side (payment methods, orders, subscription changes, the
 * customer's own details): any customer session, and member sessions of owners and billing
 * managers only; another member's session is a 403, as the hosted service answers.
 */
export const requirePortalBilling = (scopes: readonly string[]): { auth: RouteAuth } => ({
  auth: {
    kinds: PORTAL_SIDE,
    scopes,
    memberRoles: { allowed: BILLING_ROLES, refusal: "Only owners and billing managers can access billing features." },
  },
});

/** The body schema of a 204 answer. */
export const NoContent = Type.Unsafe<undefined>({ type: "null", description: "No content." });

const AuthErrorBody = Type.Object(
  { error: Type.String(), detail: Type.Optional(Type.String()), error_description: Type.Optional(Type.String()) },
  { title: "AuthError" },
);

/**
 * Response schemas for the OpenAPI document: the success schema plus the error bodies a route
 * can answer with. Error bodies are written pre-serialized by the error handler.
 */
export function responses<S extends Record<number, TSchema>>(success: S, options: { auth?: boolean; notFound?: boolean } = {}) {
  return {
    ...success,
    ...(options.auth === false ? {} : { 401: AuthErrorBody, 403: AuthErrorBody }),
    ...(options.notFound ? { 404: ErrorBody } : {}),
    422: ValidationErrorBody,
  };
}
