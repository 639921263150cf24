import type { FastifyRequest, FastifyServerOptions } from "fastify";

/** Token-shaped values (`polar_…`, client secrets) are cut out of anything logged. */
const SECRET_IN_TEXT = /polar_[a-z]+_[A-Za-z0-9]{8,}/g;
export const redactSecrets = (text: string): string => text.replace(SECRET_IN_TEXT, "[REDACTED]");

export function loggerOptions(level: string): FastifyServerOptions["logger"] {
  return {
    level,
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "*.token",
        "*.client_secret",
        "*.secret",
        "*.password",
      ],
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
