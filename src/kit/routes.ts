import { Type, type TSchema } from "@sinclair/typebox";
import type { RouteAuth, PrincipalKind } from "./auth.ts";
import { ErrorBody, ValidationErrorBody } from "./errors.ts";

/** Principal kinds of organization-side routes and of customer-portal routes. */
export const ORGANIZATION_SIDE: readonly PrincipalKind[] = ["user", "organization"];
export const PORTAL_SIDE: readonly PrincipalKind[] = ["customer", "member"];

export const requireAuth = (kinds: readonly PrincipalKind[], scopes: readonly string[]): { auth: RouteAuth } => ({
  auth: { kinds, scopes },
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
