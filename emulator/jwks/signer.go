package jwks

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Signer is the emulator's own token key: it signs access tokens as Entra does (RS256 with
// the key's kid), publishes the public half as a JWKS and verifies what it signed.
type Signer struct {
	key    *rsa.PrivateKey
	kid    string
	signer jose.Signer
	jwks   []byte
}

// NewSigner derives the kid, the signer and the public key set from key.
func NewSigner(key *rsa.PrivateKey) (*Signer, error) {
	kid, err := keyID(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	set, err := publicJWKS(&key.PublicKey, kid)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key, kid: kid, signer: signer, jwks: set}, nil
}

// Key is the private key, for the state file.
func (s *Signer) Key() *rsa.PrivateKey { return s.key }

// PublicJWKS is the key set Entra's discovery/keys serves.
func (s *Signer) PublicJWKS() []byte { return s.jwks }

// Sign serialises claims as a signed compact JWT.
func (s *Signer) Sign(claims any) (string, error) {
	return jwt.Signed(s.signer).Claims(claims).Serialize()
}

// Verify checks that tok is an RS256 JWT signed by this key (by kid and signature) and
// decodes its claims into out; it does not look at times or audiences.
func (s *Signer) Verify(tok string, out ...any) error {
	p, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return err
	}
	if p.Headers[0].KeyID != s.kid {
		return errors.New("token not signed by the emulator's key")
	}
	return p.Claims(&s.key.PublicKey, out...)
}

// keyID is the RFC 7638 thumbprint of the key, so restarts with the same key keep the kid.
func keyID(key *rsa.PublicKey) (string, error) {
	tp, err := (&jose.JSONWebKey{Key: key}).Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(tp), nil
}

// publicJWKS is the emulator's own key set, as Entra's discovery/keys serves it.
func publicJWKS(key *rsa.PublicKey, kid string) ([]byte, error) {
	return json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: key, KeyID: kid, Use: "sig", Algorithm: string(jose.RS256)},
	}})
}

// signatureKeys reads the signing keys of a JWKS by kid ("" for keys without one). Each
// key is parsed on its own so a key type the library does not know cannot hide the others,
// and only RSA and EC public keys are kept.
func signatureKeys(doc []byte) (map[string][]crypto.PublicKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(doc, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	keys := map[string][]crypto.PublicKey{}
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if json.Unmarshal(raw, &k) != nil || (k.Use != "" && k.Use != "sig") {
			continue
		}
		switch pub := k.Public().Key.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey:
			keys[k.KeyID] = append(keys[k.KeyID], pub)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("JWKS holds no usable signing key")
	}
	return keys, nil
}

// ParseRSAPrivateKeyPEM reads a PKCS #1 or PKCS #8 RSA private key.
func ParseRSAPrivateKeyPEM(s string) (*rsa.PrivateKey, error) {
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

// EncodeRSAPrivateKeyPEM writes k as PKCS #1, the form ParseRSAPrivateKeyPEM reads first.
func EncodeRSAPrivateKeyPEM(k *rsa.PrivateKey) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}
