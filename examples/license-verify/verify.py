"""Verifies a COMMERCE LICENSE file offline against the organization's JWKS (pip install cryptography).
Usage: python3 verify.py license.txt jwks.json  (prints the license's payload; exits 1 when refused)"""
import base64, json, sys, time
from datetime import datetime
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

def b64(part): return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
def epoch(iso): return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()

armored = open(sys.argv[1]).read().partition("-----BEGIN COMMERCE LICENSE-----")[2]
parts = "".join(armored.partition("-----END COMMERCE LICENSE-----")[0].split()).split(".")
if len(parts) != 3: sys.exit("not a license file")
header = json.loads(b64(parts[0]))
# Only EdDSA: never let the file choose another algorithm ("none", HS256 with the public key...).
if header.get("alg") != "EdDSA" or header.get("typ") != "commerce-license+jws": sys.exit("unexpected algorithm")
jwk = next((k for k in json.load(open(sys.argv[2]))["keys"] if k["kid"] == header.get("kid")), None)
if jwk is None: sys.exit("unknown signing key")
try: Ed25519PublicKey.from_public_bytes(b64(jwk["x"])).verify(b64(parts[2]), f"{parts[0]}.{parts[1]}".encode())
except InvalidSignature: sys.exit("bad signature")
license = json.loads(b64(parts[1]))
if time.time() > epoch(license["issued_at"]) + license["ttl"]: sys.exit("refresh the license file online")
if license["expires_at"] is not None and time.time() >= epoch(license["expires_at"]): sys.exit("license expired")
print(json.dumps(license))
