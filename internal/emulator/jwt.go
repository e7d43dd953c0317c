package emulator

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
)

// assertionAlgorithms are the signatures accepted on client assertions: those Kubernetes
// API servers and Entra sign with. No symmetric algorithm, so a key set can never be
// turned into an HMAC secret.
var assertionAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
}

// newTokenSigner signs the emulator's access tokens as Entra does: RS256 with the key's kid.
func newTokenSigner(key *rsa.PrivateKey, kid string) (jose.Signer, error) {
	return jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
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
