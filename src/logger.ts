import type { FastifyRequest, FastifyServerOptions } from "fastify";

/** Token-shaped values (`polar_…`, client secrets) are cut out of anything logged. */
const SECRET_IN_TEXT = /polar_[a-z]+_[A-Za-z0-9]{8,}/g;
/** A local download link's signature is a bearer credential until the link expires. */
const SIGNATURE_IN_QUERY = /([?&]signature=)[^&#]*/g;
export const redactSecrets = (text: string): string =>
  text.replace(SECRET_IN_TEXT, "[REDACTED]").replace(SIGNATURE_IN_QUERY, "$1[REDACTED]");

/** The app's logger: stdout unless a stream is given (tests read what would be shipped). */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions["logger"] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", "*.token", "*.client_secret", "*.secret", "*.password"],
      censor: "[REDACTED]",
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        id: request.id,
        method: request.method,
        url: redactSecrets(request.url ?? ""),
        remoteAddress: request.ip,
      }),
    },
  };
}
