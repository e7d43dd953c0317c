package emulator

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

var b64 = base64.RawURLEncoding

// jwtHeader is the part of a JOSE header the emulator reads.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
	Typ string `json:"typ,omitempty"`
}

// parsedJWT is a compact JWS split into its parts; the signature is not yet verified.
type parsedJWT struct {
	header       jwtHeader
	claims       map[string]any
	signingInput string
	signature    []byte
}

var errMalformedJWT = errors.New("JWT token is invalid or malformed")

func parseJWT(tok string) (*parsedJWT, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, errMalformedJWT
	}
	hb, err1 := b64.DecodeString(parts[0])
	cb, err2 := b64.DecodeString(parts[1])
	sig, err3 := b64.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, errMalformedJWT
	}
	p := &parsedJWT{signingInput: parts[0] + "." + parts[1], signature: sig}
	if err := json.Unmarshal(hb, &p.header); err != nil {
		return nil, errMalformedJWT
	}
	dec := json.NewDecoder(bytes.NewReader(cb))
	dec.UseNumber()
	if err := dec.Decode(&p.claims); err != nil {
		return nil, errMalformedJWT
	}
	return p, nil
}

// verify checks the signature with key for the algorithms Kubernetes API servers and Entra
// use: RS256/384/512, PS256 and ES256/384.
func (p *parsedJWT) verify(key crypto.PublicKey) error {
	h, hash := hasherFor(p.header.Alg)
	if h == nil {
		return fmt.Errorf("unsupported JWT algorithm %q", p.header.Alg)
	}
	h.Write([]byte(p.signingInput))
	digest := h.Sum(nil)
	switch k := key.(type) {
	case *rsa.PublicKey:
		switch p.header.Alg {
		case "RS256", "RS384", "RS512":
			return rsa.VerifyPKCS1v15(k, hash, digest, p.signature)
		case "PS256":
			return rsa.VerifyPSS(k, hash, digest, p.signature, nil)
		}
	case *ecdsa.PublicKey:
		size := (k.Curve.Params().BitSize + 7) / 8
		if !strings.HasPrefix(p.header.Alg, "ES") || len(p.signature) != 2*size {
			return errors.New("signature does not match the EC key")
		}
		r := new(big.Int).SetBytes(p.signature[:size])
		s := new(big.Int).SetBytes(p.signature[size:])
		if ecdsa.Verify(k, digest, r, s) {
			return nil
		}
		return errors.New("EC signature verification failed")
	}
	return fmt.Errorf("algorithm %s does not fit key type %T", p.header.Alg, key)
}

func hasherFor(alg string) (interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}, crypto.Hash) {
	switch alg {
	case "RS256", "ES256", "PS256":
		return sha256.New(), crypto.SHA256
	case "RS384", "ES384":
		return sha512.New384(), crypto.SHA384
	case "RS512":
		return sha512.New(), crypto.SHA512
	}
	return nil, 0
}

// signRS256 produces a compact JWS with the given claims.
func signRS256(key *rsa.PrivateKey, kid string, claims any) (string, error) {
	hb, _ := json.Marshal(jwtHeader{Alg: "RS256", Kid: kid, Typ: "JWT"})
	cb, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	d := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, d[:])
	if err != nil {
		return "", err
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// jwk is one JSON Web Key (public part).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
}

type jwkSet struct {
	Keys []jwk `json:"keys"`
}

// publicKey converts the JWK; keys of unknown types yield an error and are skipped by callers.
func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := b64.DecodeString(k.N)
		e, err2 := b64.DecodeString(k.E)
		if err1 != nil || err2 != nil || len(n) == 0 || len(e) == 0 {
			return nil, errors.New("invalid RSA JWK")
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		default:
			return nil, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		x, err1 := b64.DecodeString(k.X)
		y, err2 := b64.DecodeString(k.Y)
		if err1 != nil || err2 != nil {
			return nil, errors.New("invalid EC JWK")
		}
		// Go through the uncompressed point encoding so the point is validated on the curve.
		size := (curve.Params().BitSize + 7) / 8
		if len(x) > size || len(y) > size {
			return nil, errors.New("invalid EC JWK coordinates")
		}
		raw := make([]byte, 1+2*size)
		raw[0] = 4
		copy(raw[1+size-len(x):1+size], x)
		copy(raw[1+2*size-len(y):], y)
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, raw)
		if err != nil {
			return nil, fmt.Errorf("invalid EC JWK: %w", err)
		}
		return pub, nil
	}
	return nil, fmt.Errorf("unsupported key type %q", k.Kty)
}

// rsaJWK renders the public half of key as a JWK for the emulator's own JWKS.
func rsaJWK(key *rsa.PublicKey, kid string) jwk {
	return jwk{Kty: "RSA", Kid: kid, Use: "sig", Alg: "RS256",
		N: b64.EncodeToString(key.N.Bytes()), E: b64.EncodeToString(big.NewInt(int64(key.E)).Bytes())}
}

// keyID derives a stable kid from the public key so restarts with the same key keep the kid.
func keyID(key *rsa.PublicKey) string {
	d := sha256.Sum256(key.N.Bytes())
	return b64.EncodeToString(d[:12])
}

func parseRSAPrivateKeyPEM(s string) (*rsa.PrivateKey, error) {
	blk, _ := pem.Decode([]byte(s))
	if blk == nil {
		return nil, errors.New("signing key: no PEM block")
	}
	if k, err := x509.ParsePKCS1PrivateKey(blk.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("signing key: not an RSA key")
	}
	return rk, nil
}

func encodeRSAPrivateKeyPEM(k *rsa.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// claim helpers: JWT claims decoded with UseNumber.

func claimString(c map[string]any, name string) string {
	s, _ := c[name].(string)
	return s
}

func claimInt(c map[string]any, name string) (int64, bool) {
	switch v := c[name].(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, true
		}
		if f, err := v.Float64(); err == nil {
			return int64(f), true
		}
	case float64:
		return int64(v), true
	}
	return 0, false
}

// claimAudiences reads "aud", which may be a string or an array of strings.
func claimAudiences(c map[string]any) []string {
	switch v := c["aud"].(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, a := range v {
			if s, ok := a.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
