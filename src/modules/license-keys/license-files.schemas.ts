import { Type, type Static } from "@sinclair/typebox";
import { DateTime, Uuid4 } from "../../schema/primitives.ts";
import { LicenseKeyDeactivate } from "./license-keys.schemas.ts";

/** The public half of a signing key, as RFC 8037 writes an Ed25519 key in a JWK. */
export const LicenseSigningJwk = Type.Object(
  {
    kty: Type.Literal("OKP"),
    crv: Type.Literal("Ed25519"),
    x: Type.String({ description: "The raw public key, base64url." }),
    kid: Type.String({ description: "The `kid` of the license files it signed." }),
    alg: Type.Literal("EdDSA"),
    use: Type.Literal("sig"),
  },
  { title: "LicenseSigningJwk" },
);

export const LicenseSigningJwks = Type.Object(
  { keys: Type.Array(LicenseSigningJwk, { description: "The active key first, then retired keys whose files are still current." }) },
  { title: "LicenseSigningJwks" },
);
export type LicenseSigningJwks = Static<typeof LicenseSigningJwks>;

export const LicenseFile = Type.Object(
  {
    license_file: Type.String({ description: "The compact JWS in its `COMMERCE LICENSE` armor, ready to be saved as a file." }),
    kid: Type.String({ description: "The signing key, in the organization's JWKS." }),
    issued_at: DateTime(),
    refresh_at: DateTime({ description: "`issued_at` plus the file's `ttl`: when the app must fetch a new file online." }),
  },
  { title: "LicenseFile" },
);
export type LicenseFile = Static<typeof LicenseFile>;

/** A key by value and one of its live activations: the body a deactivation takes. */
export const LicenseFileRequest = Type.Object(LicenseKeyDeactivate.properties, { title: "LicenseFileRequest" });
export type LicenseFileRequest = Static<typeof LicenseFileRequest>;

export const LicenseFileQuery = Type.Object({ activation_id: Uuid4({ description: "The activation the file is issued to." }) });
export type LicenseFileQuery = Static<typeof LicenseFileQuery>;
