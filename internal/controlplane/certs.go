package controlplane

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the key material of one control plane, written as PEM files in dir.
type pki struct {
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
func newPKI(dir string) (*pki, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "aztenant-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)

	issue := func(serial int64, subject pkix.Name, usage x509.ExtKeyUsage, hosts bool) (certPEM, keyPEM []byte, err error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      subject,
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		if hosts {
			tmpl.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"}
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 0, 0, 1)}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, nil, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, nil, err
		}
		return pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", keyDER), nil
	}

	p := &pki{caPEM: pemBlock("CERTIFICATE", caDER)}
	servingCert, servingKey, err := issue(2, pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth, true)
	if err != nil {
		return nil, err
	}
	p.adminCertPEM, p.adminKeyPEM, err = issue(3, pkix.Name{CommonName: "aztenant-admin", Organization: []string{"system:masters"}}, x509.ExtKeyUsageClientAuth, false)
	if err != nil {
		return nil, err
	}
	// The operator's own user, so admission can tell it from the admin (the
	// provisioner accounts' tokens are reserved for it). system:masters: the
	// tests' operator runs without the chart's RBAC.
	p.operatorCertPEM, p.operatorKeyPEM, err = issue(4, pkix.Name{CommonName: OperatorUser, Organization: []string{"system:masters"}}, x509.ExtKeyUsageClientAuth, false)
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
