package pki

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ControlPlaneKeys is the key material of one local control plane
// (internal/lab/controlplane), written as PEM files in a directory.
type ControlPlaneKeys struct {
	// CAPEM is the CA that signs the serving and client certificates;
	// CAFile holds it.
	CAPEM  []byte
	CAFile string
	// ServingCertFile and ServingKeyFile are kube-apiserver's serving pair.
	ServingCertFile, ServingKeyFile string
	// AdminCertPEM and AdminKeyPEM authenticate an admin (system:masters).
	AdminCertPEM, AdminKeyPEM []byte
	// OperatorCertPEM and OperatorKeyPEM authenticate the operator's user.
	OperatorCertPEM, OperatorKeyPEM []byte
	// SAPublicFile and SAPrivateFile are the RSA pair with which the API
	// server signs ServiceAccount tokens.
	SAPublicFile, SAPrivateFile string
}

// WriteControlPlane makes a CA that signs both the API server's serving
// certificate and two client certificates, an admin's and operatorUser's
// (both in group system:masters), plus an RSA key pair with which the API
// server signs ServiceAccount tokens (RS256, as most managed clusters do),
// and writes them into dir.
func WriteControlPlane(dir, operatorUser string) (*ControlPlaneKeys, error) {
	ca, err := NewCA("aztenant-local-ca")
	if err != nil {
		return nil, err
	}
	const tenYears = 10 * 365 * 24 * time.Hour
	issue := func(l Leaf) (certPEM, keyPEM []byte, err error) {
		l.Validity = tenYears
		leaf, err := ca.Issue(l)
		if err != nil {
			return nil, nil, err
		}
		return leaf.CertPEM, leaf.KeyPEM, nil
	}

	k := &ControlPlaneKeys{CAPEM: ca.CertPEM}
	servingCert, servingKey, err := issue(Leaf{CommonName: "kube-apiserver",
		Hosts: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "127.0.0.1", "::1", "10.0.0.1"}})
	if err != nil {
		return nil, err
	}
	k.AdminCertPEM, k.AdminKeyPEM, err = issue(Leaf{CommonName: "aztenant-admin", Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		return nil, err
	}
	// The operator's own user, so admission can tell it from the admin (the
	// provisioner accounts' tokens are reserved for it). system:masters: the
	// tests' operator runs without the chart's RBAC.
	k.OperatorCertPEM, k.OperatorKeyPEM, err = issue(Leaf{CommonName: operatorUser, Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPriv, err := x509.MarshalPKCS8PrivateKey(saKey)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return nil, err
	}

	files := map[string][]byte{
		"ca.crt":        k.CAPEM,
		"apiserver.crt": servingCert,
		"apiserver.key": servingKey,
		"sa.key":        pemOf("PRIVATE KEY", saPriv),
		"sa.pub":        pemOf("PUBLIC KEY", saPub),
		"admin.crt":     k.AdminCertPEM,
		"admin.key":     k.AdminKeyPEM,
		"operator.crt":  k.OperatorCertPEM,
		"operator.key":  k.OperatorKeyPEM,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	k.CAFile = filepath.Join(dir, "ca.crt")
	k.ServingCertFile = filepath.Join(dir, "apiserver.crt")
	k.ServingKeyFile = filepath.Join(dir, "apiserver.key")
	k.SAPublicFile = filepath.Join(dir, "sa.pub")
	k.SAPrivateFile = filepath.Join(dir, "sa.key")
	return k, nil
}
