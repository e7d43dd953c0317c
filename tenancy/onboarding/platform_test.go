package onboarding_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/tenancy/onboarding"
)

// The operator keeps the platform Identity its flags describe: created when
// missing, left alone when equal, its spec restored when someone changed it.
func TestEnsurePlatformIdentity(t *testing.T) {
	env := testenv.Get(t)
	ctx, c := t.Context(), env.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ops-ensure"}}); err != nil {
		t.Fatal(err)
	}
	name := types.NamespacedName{Namespace: "ops-ensure", Name: "platform"}
	spec := identityv1alpha1.IdentitySpec{ServiceAccountName: "aztenant", ClientID: platformClientID, TenantID: tenantID, SubscriptionID: subID}
	get := func() *identityv1alpha1.Identity {
		t.Helper()
		var id identityv1alpha1.Identity
		if err := c.Get(ctx, name, &id); err != nil {
			t.Fatal(err)
		}
		return &id
	}

	if err := onboarding.EnsurePlatformIdentity(ctx, c, name, spec); err != nil {
		t.Fatal(err)
	}
	if got := get().Spec; got != spec {
		t.Fatalf("created spec %+v, want %+v", got, spec)
	}
	rv := get().ResourceVersion
	if err := onboarding.EnsurePlatformIdentity(ctx, c, name, spec); err != nil {
		t.Fatal(err)
	}
	if get().ResourceVersion != rv {
		t.Error("an unchanged platform Identity was written again")
	}

	changed := get()
	changed.Spec.ClientID = "bbbbbbbb-1111-4111-8111-000000000002"
	if err := c.Update(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if err := onboarding.EnsurePlatformIdentity(ctx, c, name, spec); err != nil {
		t.Fatal(err)
	}
	if got := get().Spec; got != spec {
		t.Errorf("spec after a restart %+v, want the flags' %+v", got, spec)
	}

	partial := spec
	partial.SubscriptionID = ""
	if err := onboarding.EnsurePlatformIdentity(ctx, c, name, partial); err == nil || !strings.Contains(err.Error(), "subscription ID") {
		t.Errorf("incomplete flags: %v, want an error naming what is missing", err)
	}
}
