package main

import (
	"bytes"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// whoami tells a developer, with no more than read access to Identities,
// which Azure principal the namespace acts as (what the operator's own
// exchange found), never a token; without that right it names the missing
// right, and without an Identity it says to onboard.
func TestWhoami(t *testing.T) {
	s := stacktest.New(t, "who")
	ctx := t.Context()
	as := func(user string) client.Client {
		cfg := rest.CopyConfig(s.Env.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		c, err := client.New(cfg, client.Options{Scheme: s.Env.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	s.Create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "identity-reader", Namespace: "who"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"identity.aztenant.io"}, Resources: []string{"identities"}, Verbs: []string{"get"}}}})
	s.Create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dev", Namespace: "who"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "identity-reader"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "dev@who"}}})
	dev := as("dev@who")

	var out bytes.Buffer
	var err error
	stacktest.Until(t, "the developer may read the Identity", func() bool {
		out.Reset()
		err = whoami(ctx, &out, dev, "who", "default")
		return err == nil
	})
	for _, want := range []string{"system:serviceaccount:who:" + identity.ProvisionerServiceAccount, s.ClientID["who"], s.Principal["who"],
		stacktest.TenantID, stacktest.SubscriptionID, "Last exchange:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "eyJ") {
		t.Errorf("output contains a JWT:\n%s", out.String())
	}

	if err := whoami(ctx, &out, dev, "who", "other"); err == nil || !strings.Contains(err.Error(), "ask your platform team to onboard") {
		t.Errorf("without that Identity: %v, want a hint to onboard", err)
	}
	if err := whoami(ctx, &out, as("stranger"), "who", "default"); err == nil || !strings.Contains(err.Error(), "get identities.identity.aztenant.io") {
		t.Errorf("without the right to read Identities: %v, want the missing right named", err)
	}
}
