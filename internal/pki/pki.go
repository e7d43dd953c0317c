package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority that issues leaf certificates.
type CA struct {
	Cert *x509.Certificate
	// CertPEM and KeyPEM are what ParseCA reads back.
	CertPEM, KeyPEM []byte
	key             *ecdsa.PrivateKey
}

// NewCA makes a CA valid for ten years.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"aztenant"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return ParseCA(pemOf("CERTIFICATE", der), pemOf("EC PRIVATE KEY", keyDER))
}

// ParseCA reads a CA written as CertPEM and KeyPEM (an EC or PKCS#8 key).
func ParseCA(certPEM, keyPEM []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, errors.New("CA: invalid PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("CA certificate: %w", err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		k, perr := x509.ParsePKCS8PrivateKey(kb.Bytes)
		ec, ok := k.(*ecdsa.PrivateKey)
		if perr != nil || !ok {
			return nil, fmt.Errorf("CA key: %w", err)
		}
		key = ec
	}
	return &CA{Cert: cert, CertPEM: certPEM, KeyPEM: keyPEM, key: key}, nil
}

// Leaf describes a certificate to issue.
type Leaf struct {
	CommonName   string
	Organization []string
	// Hosts are DNS names and IP addresses, for serving certificates.
	Hosts []string
	// Client makes a client certificate instead of a serving one.
	Client bool
	// Validity defaults to one year.
	Validity time.Duration
}

// Issued is a leaf certificate and its key.
type Issued struct {
	CertPEM, KeyPEM []byte
	// TLS is the pair for a server, with the CA's certificate in its chain.
	TLS tls.Certificate
}

// Issue signs a leaf certificate.
func (ca *CA) Issue(l Leaf) (*Issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	validity := l.Validity
	if validity == 0 {
		validity = 365 * 24 * time.Hour
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: l.CommonName, Organization: l.Organization},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if l.Client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, h := range l.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Issued{
		CertPEM: pemOf("CERTIFICATE", der), KeyPEM: pemOf("PRIVATE KEY", keyDER),
		TLS: tls.Certificate{Certificate: [][]byte{der, ca.Cert.Raw}, PrivateKey: key},
	}, nil
}

// Pool is a certificate pool trusting the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// WriteServing writes tls.crt and tls.key for hosts into dir, as webhooks
// (controller-runtime's --cert-dir convention) read them, signed by a new
// CA whose certificate (the caBundle) it returns.
func WriteServing(dir string, hosts ...string) (caPEM []byte, err error) {
	ca, err := NewCA("aztenant test webhook CA")
	if err != nil {
		return nil, err
	}
	leaf, err := ca.Issue(Leaf{CommonName: "webhook", Hosts: hosts})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), leaf.CertPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), leaf.KeyPEM, 0o600); err != nil {
		return nil, err
	}
	return ca.CertPEM, nil
}

// PoolOf is a pool trusting the PEM certificates given.
func PoolOf(caPEM []byte) *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(caPEM)
	return p
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}
