package controlplane_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const azureAudience = "api://AzureADTokenExchange"

// A ServiceAccount token minted by the real API server verifies against the
// issuer's own discovery document and JWKS, read anonymously as Entra ID reads
// them, and carries the subject and audience that federation matches on.
func TestServiceAccountTokenVerifiesAgainstIssuerJWKS(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(env.Config)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: "team-a"}}
	if _, err := cs.CoreV1().ServiceAccounts("team-a").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := requestToken(ctx, t, cs, "team-a", "azure", azureAudience)

	disc, err := env.Discovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if disc.Issuer != env.IssuerURL {
		t.Fatalf("discovery issuer %q, want %q", disc.Issuer, env.IssuerURL)
	}
	keys := fetchJWKS(t, env.HTTPClient(), disc.JWKSURI)

	claims, err := verifyRS256(token, keys)
	if err != nil {
		t.Fatalf("token does not verify against the issuer's JWKS: %v", err)
	}
	if claims.Issuer != env.IssuerURL {
		t.Errorf("iss = %q, want %q", claims.Issuer, env.IssuerURL)
	}
	if want := "system:serviceaccount:team-a:azure"; claims.Subject != want {
		t.Errorf("sub = %q, want %q", claims.Subject, want)
	}
	if !slices.Equal(claims.Audience, []string{azureAudience}) {
		t.Errorf("aud = %v, want [%s]", claims.Audience, azureAudience)
	}
	if ttl := time.Until(claims.Expiry.Time()); ttl < 9*time.Minute || ttl > 11*time.Minute {
		t.Errorf("token expires in %s, want about 10m", ttl)
	}

	// The check is not vacuous: a token altered after signing must fail.
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(
		string(payload), "team-a", "team-b", 1))) + "." + parts[2]
	if _, err := verifyRS256(forged, keys); err == nil {
		t.Fatal("a token whose subject was changed after signing verified")
	}
}

// The API server and kubectl report the pinned release, not v0.0.0-master, so
// Helm's kubeVersion checks and users see the real version.
func TestVersionsArePinned(t *testing.T) {
	env := testenv.Get(t)
	want := pinnedKubeVersion(t)

	cs := kubernetes.NewForConfigOrDie(env.Config)
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != want {
		t.Errorf("kube-apiserver reports %s, want %s", v.GitVersion, want)
	}

	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(bin, "kubectl"), "version", "--client", "-o", "json").Output()
	if err != nil {
		t.Fatalf("kubectl version: %v", err)
	}
	var kv struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
	}
	if err := json.Unmarshal(out, &kv); err != nil {
		t.Fatal(err)
	}
	if kv.ClientVersion.GitVersion != want {
		t.Errorf("kubectl reports %s, want %s", kv.ClientVersion.GitVersion, want)
	}
}

func pinnedKubeVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../../hack/tools/versions.env")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^KUBE_VERSION=(\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("KUBE_VERSION not in versions.env")
	}
	return string(m[1])
}

func requestToken(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, sa, audience string) string {
	t.Helper()
	expiry := int64(600)
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	return tr.Status.Token
}

func fetchJWKS(t *testing.T, hc *http.Client, url string) *jose.JSONWebKeySet {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatalf("decode JWKS: %v", err)
	}
	if len(set.Keys) == 0 {
		t.Fatalf("no keys in JWKS at %s", url)
	}
	return &set
}

// verifyRS256 checks a compact JWS against the key its kid names and returns its claims.
func verifyRS256(token string, keys *jose.JSONWebKeySet) (*jwt.Claims, error) {
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil, err
	}
	var c jwt.Claims
	return &c, tok.Claims(keys, &c)
}
