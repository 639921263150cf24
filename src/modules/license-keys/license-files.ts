import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";

/**
 * License files (an extension): a compact JWS (RFC 7515) signed with Ed25519 (`alg: EdDSA`,
 * RFC 8037), so any language verifies one with its standard library, wrapped in a plain-text
 * armor for files. The JWS is cut into 64-character lines inside the armor, as PEM is; a
 * verifier joins the lines between the armor lines before splitting at the dots.
 */

export const LICENSE_ARMOR_BEGIN = "-----BEGIN COMMERCE LICENSE-----";
export const LICENSE_ARMOR_END = "-----END COMMERCE LICENSE-----";
/** The JWS `typ`: tells a license file from any other JWS signed with the same key. */
export const LICENSE_FILE_TYPE = "commerce-license+jws";
/** How long a file lasts before the app must refresh it online, when the benefit does not say. */
export const DEFAULT_LICENSE_FILE_TTL_DAYS = 30;

const b64url = (value: Buffer | string): string => Buffer.from(value).toString("base64url");

/** A new Ed25519 key pair: the raw public key (base64url, the JWK's `x`) and the private key as PKCS#8 DER, base64url. */
export function newSigningKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  return { publicKey: jwk.x!, privateKey: b64url(privateKey.export({ format: "der", type: "pkcs8" })) };
}

export const privateSigningKey = (pkcs8: string): KeyObject =>
  createPrivateKey({ key: Buffer.from(pkcs8, "base64url"), format: "der", type: "pkcs8" });

/** The compact JWS of `payload` under `kid`, armored and wrapped for a file. */
export function signLicenseFile(payload: object, kid: string, privateKey: KeyObject): string {
  const signingInput = `${b64url(JSON.stringify({ alg: "EdDSA", kid, typ: LICENSE_FILE_TYPE }))}.${b64url(JSON.stringify(payload))}`;
  const jws = `${signingInput}.${b64url(sign(null, Buffer.from(signingInput), privateKey))}`;
  return [LICENSE_ARMOR_BEGIN, ...(jws.match(/.{1,64}/g) ?? []), LICENSE_ARMOR_END, ""].join("\n");
}
