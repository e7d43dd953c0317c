package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// A serving pair written by WriteServing is trusted through its CA by a real
// TLS client for 127.0.0.1, and a CA read back with ParseCA issues as before.
func TestServingAndClientCertificates(t *testing.T) {
	dir := t.TempDir()
	caPEM, err := WriteServing(dir, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	defer srv.Close()

	ca, err := NewCA("client CA")
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseCA(ca.CertPEM, ca.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	client, err := again.Issue(Leaf{CommonName: "alice", Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(client.TLS.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: again.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the client certificate does not verify as one: %v", err)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: PoolOf(caPEM)}}}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatalf("the serving certificate is not trusted through its CA: %v", err)
	}
	resp.Body.Close()
}

// The control plane's key set: the serving certificate verifies for the API
// server's names through the CA written beside it, the admin's and the
// operator's are client certificates in system:masters.
func TestWriteControlPlane(t *testing.T) {
	dir := t.TempDir()
	k, err := WriteControlPlane(dir, "the-operator")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{k.CAFile, k.ServingCertFile, k.ServingKeyFile, k.SAPublicFile, k.SAPrivateFile} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	pair, err := tls.LoadX509KeyPair(k.ServingCertFile, k.ServingKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "kubernetes.default.svc"} {
		if _, err := serving.Verify(x509.VerifyOptions{Roots: PoolOf(k.CAPEM), DNSName: host}); err != nil {
			t.Errorf("serving certificate for %s: %v", host, err)
		}
	}
	for user, pemPair := range map[string][2][]byte{"aztenant-admin": {k.AdminCertPEM, k.AdminKeyPEM}, "the-operator": {k.OperatorCertPEM, k.OperatorKeyPEM}} {
		pair, err := tls.X509KeyPair(pemPair[0], pemPair[1])
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if cert.Subject.CommonName != user || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
			t.Errorf("client certificate subject %v, want %s in system:masters", cert.Subject, user)
		}
		if _, err := cert.Verify(x509.VerifyOptions{Roots: PoolOf(k.CAPEM), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s: %v", user, err)
		}
	}
}
