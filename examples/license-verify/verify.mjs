// Verifies a COMMERCE LICENSE file offline against the organization's JWKS, with node:crypto only.
// Usage: node verify.mjs license.txt jwks.json  (prints the license's payload; exits 1 when refused)
import { createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";

const [licensePath, jwksPath] = process.argv.slice(2);
const armored = readFileSync(licensePath, "utf8").split("-----BEGIN COMMERCE LICENSE-----")[1] ?? "";
const parts = armored.split("-----END COMMERCE LICENSE-----")[0].replace(/\s+/g, "").split(".");
if (parts.length !== 3) throw new Error("not a license file");
const [header64, payload64, signature64] = parts;
const header = JSON.parse(Buffer.from(header64, "base64url").toString());
// Only EdDSA: never let the file choose another algorithm ("none", HS256 with the public key...).
if (header.alg !== "EdDSA" || header.typ !== "commerce-license+jws") throw new Error("unexpected algorithm");
const jwk = JSON.parse(readFileSync(jwksPath, "utf8")).keys.find((key) => key.kid === header.kid);
if (!jwk) throw new Error("unknown signing key");
const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x }, format: "jwk" });
const signed = Buffer.from(`${header64}.${payload64}`);
if (!verify(null, signed, publicKey, Buffer.from(signature64, "base64url"))) throw new Error("bad signature");
const license = JSON.parse(Buffer.from(payload64, "base64url").toString());
if (Date.now() > Date.parse(license.issued_at) + license.ttl * 1000) throw new Error("refresh the license file online");
if (license.expires_at !== null && Date.now() >= Date.parse(license.expires_at)) throw new Error("license expired");
console.log(JSON.stringify(license));
