package main

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/e2e/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	tenantID = "11111111-2222-3333-4444-555555555555"
	subID    = "66666666-7777-8888-9999-000000000000"
	clientID = "12345678-0000-0000-0000-000000000001"
)

// whoami performs a real exchange and prints who the namespace is in Azure,
// never the token; when something is missing it names the fix.
func TestWhoami(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	emu, err := emulator.New(emulator.Config{Seed: emulator.Seed{
		Tenants:        []emulator.Tenant{{ID: tenantID}},
		Subscriptions:  []emulator.Subscription{{ID: subID, TenantID: tenantID}},
		TrustedIssuers: []emulator.TrustedIssuer{{Issuer: env.IssuerURL, CAPEM: string(env.CAPEM)}},
		Principals: []emulator.Principal{{ClientID: clientID, TenantID: tenantID, FederatedCredentials: []emulator.FederatedCredential{{
			Name: "k8s", Issuer: env.IssuerURL, Subject: "system:serviceaccount:who:azure", Audiences: []string{identity.TokenAudience},
		}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer emu.Close()
	cloud := identity.Cloud{AuthorityHost: emu.URL() + "/", ARMEndpoint: emu.URL(), ARMAudience: "https://management.core.windows.net/", CABundle: emu.CAPEM()}

	c := env.Client
	mustCreate(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "who"}}))
	mustCreate(t, c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "azure", Namespace: "who", Annotations: map[string]string{
		identity.AnnotationClientID: clientID, identity.AnnotationTenantID: tenantID,
	}}}))

	var out bytes.Buffer
	err = whoami(ctx, &out, c, cloud, "who", "default")
	if err == nil || !strings.Contains(err.Error(), "ask your platform team to onboard") {
		t.Fatalf("without an Identity: %v, want a hint to onboard", err)
	}

	mustCreate(t, c.Create(ctx, &identityv1alpha1.Identity{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "who"},
		Spec:       identityv1alpha1.IdentitySpec{ServiceAccountName: "azure", SubscriptionID: subID},
	}))
	if err := whoami(ctx, &out, c, cloud, "who", "default"); err != nil {
		t.Fatal(err)
	}
	oid, _ := emu.PrincipalID(clientID)
	for _, want := range []string{"system:serviceaccount:who:azure", clientID, oid, tenantID, subID, "Token expires:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "eyJ") {
		t.Errorf("output contains a JWT:\n%s", out.String())
	}
}

func mustCreate(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
