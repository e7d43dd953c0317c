package controlplane

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aztenant/aztenant/internal/pki"
)

// keys is the key material of one control plane, written as PEM files in dir.
type keys struct {
	caPEM        []byte
	caFile       string
	servingCert  string
	servingKey   string
	adminCertPEM []byte
	adminKeyPEM  []byte
	// operatorCertPEM and operatorKeyPEM authenticate OperatorUser.
	operatorCertPEM, operatorKeyPEM []byte
	saPublicFile                    string
	saPrivateFile                   string
}

// newPKI makes a CA that signs both the API server's serving certificate and an
// admin client certificate (group system:masters), plus an RSA key pair with which
// the API server signs ServiceAccount tokens (RS256, as most managed clusters do).
func newPKI(dir string) (*keys, error) {
	ca, err := pki.NewCA("aztenant-local-ca")
	if err != nil {
		return nil, err
	}
	const tenYears = 10 * 365 * 24 * time.Hour
	issue := func(l pki.Leaf) (certPEM, keyPEM []byte, err error) {
		l.Validity = tenYears
		leaf, err := ca.Issue(l)
		if err != nil {
			return nil, nil, err
		}
		return leaf.CertPEM, leaf.KeyPEM, nil
	}

	p := &keys{caPEM: ca.CertPEM}
	servingCert, servingKey, err := issue(pki.Leaf{CommonName: "kube-apiserver",
		Hosts: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "127.0.0.1", "::1", "10.0.0.1"}})
	if err != nil {
		return nil, err
	}
	p.adminCertPEM, p.adminKeyPEM, err = issue(pki.Leaf{CommonName: "aztenant-admin", Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		return nil, err
	}
	// The operator's own user, so admission can tell it from the admin (the
	// provisioner accounts' tokens are reserved for it). system:masters: the
	// tests' operator runs without the chart's RBAC.
	p.operatorCertPEM, p.operatorKeyPEM, err = issue(pki.Leaf{CommonName: OperatorUser, Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPriv, _ := x509.MarshalPKCS8PrivateKey(saKey)
	saPub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return nil, err
	}

	files := map[string][]byte{
		"ca.crt":        p.caPEM,
		"apiserver.crt": servingCert,
		"apiserver.key": servingKey,
		"sa.key":        pemBlock("PRIVATE KEY", saPriv),
		"sa.pub":        pemBlock("PUBLIC KEY", saPub),
		"admin.crt":     p.adminCertPEM,
		"admin.key":     p.adminKeyPEM,
		"operator.crt":  p.operatorCertPEM,
		"operator.key":  p.operatorKeyPEM,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	p.caFile = filepath.Join(dir, "ca.crt")
	p.servingCert = filepath.Join(dir, "apiserver.crt")
	p.servingKey = filepath.Join(dir, "apiserver.key")
	p.saPublicFile = filepath.Join(dir, "sa.pub")
	p.saPrivateFile = filepath.Join(dir, "sa.key")
	return p, nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
