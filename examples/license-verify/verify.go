// Verifies a COMMERCE LICENSE file offline against the organization's JWKS, with the standard library only.
// Usage: go run verify.go license.txt jwks.json  (prints the license's payload; exits 1 when refused)
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

func fail(why string) { fmt.Fprintln(os.Stderr, why); os.Exit(1) }

func main() {
	text, _ := os.ReadFile(os.Args[1])
	_, armored, _ := strings.Cut(string(text), "-----BEGIN COMMERCE LICENSE-----")
	body, _, _ := strings.Cut(armored, "-----END COMMERCE LICENSE-----")
	parts := strings.Split(strings.Join(strings.Fields(body), ""), ".")
	if len(parts) != 3 { fail("not a license file") }
	var header struct{ Alg, Kid, Typ string }
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	// Only EdDSA: never let the file choose another algorithm ("none", HS256 with the public key...).
	if err != nil || json.Unmarshal(raw, &header) != nil || header.Alg != "EdDSA" || header.Typ != "commerce-license+jws" { fail("unexpected algorithm") }
	var jwks struct{ Keys []struct{ Kid, X string } }
	if file, _ := os.ReadFile(os.Args[2]); json.Unmarshal(file, &jwks) != nil { fail("bad JWKS") }
	for _, key := range jwks.Keys {
		x, errX := base64.RawURLEncoding.DecodeString(key.X)
		sig, errS := base64.RawURLEncoding.DecodeString(parts[2])
		if key.Kid != header.Kid || errX != nil || errS != nil || len(x) != ed25519.PublicKeySize { continue }
		if !ed25519.Verify(ed25519.PublicKey(x), []byte(parts[0]+"."+parts[1]), sig) { fail("bad signature") }
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var license struct { IssuedAt time.Time `json:"issued_at"`; TTL int64 `json:"ttl"`; ExpiresAt *time.Time `json:"expires_at"` }
		if json.Unmarshal(payload, &license) != nil { fail("bad payload") }
		if time.Now().After(license.IssuedAt.Add(time.Duration(license.TTL) * time.Second)) { fail("refresh the license file online") }
		if license.ExpiresAt != nil && !time.Now().Before(*license.ExpiresAt) { fail("license expired") }
		fmt.Println(string(payload))
		return
	}
	fail("unknown signing key")
}
