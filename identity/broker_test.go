package identity_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
)

// A resource in namespace A reaches Azure as A's principal and one in B as B's:
// the emulator's audit log names the principal of each write.
func TestEachNamespaceActsAsItsOwnIdentity(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "iso-a", "iso-b")
	tenantNamespace(t, w.c, "iso-a", clientA)
	tenantNamespace(t, w.c, "iso-b", clientB)
	b := w.broker()
	ctx := t.Context()

	for ns, want := range map[string]string{"iso-a": clientA, "iso-b": clientB} {
		cred, scope, err := b.CredentialFor(ctx, resource(ns, nil))
		if err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
		if scope.ClientID != want || scope.SubscriptionID != subID || scope.Namespace != ns {
			t.Errorf("%s: scope %+v", ns, scope)
		}
		if err := w.createRG(ctx, cred, "rg-"+ns); err != nil {
			t.Fatalf("%s: create resource group: %v", ns, err)
		}
		puts := w.emu.Audit(emulator.AuditFilter{Service: "arm", Method: "PUT"})
		var found bool
		for _, e := range puts {
			if strings.HasSuffix(e.Path, "/rg-"+ns) {
				found = true
				if e.PrincipalID != w.principal(t, want) {
					t.Errorf("%s: resource group written by %s, want %s's principal %s", ns, e.PrincipalID, want, w.principal(t, want))
				}
			}
		}
		if !found {
			t.Errorf("%s: no PUT of rg-%s in the audit log", ns, ns)
		}
	}
}

// Naming another namespace's client ID gets a federation rejection from Entra
// (the subject is this namespace's ServiceAccount), never a token; nothing
// reaches ARM.
func TestForeignClientIDIsRejectedByFederation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "thief-victim", "thief")
	tenantNamespace(t, w.c, "thief", clientA) // clientA trusts thief-victim only
	cred, scope, err := w.broker().CredentialFor(t.Context(), resource("thief", nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{w.cloud.ARMScope()}})
	if err == nil {
		t.Fatal("a namespace obtained a token for another namespace's identity")
	}
	err = identity.AsFederationError(err, scope)
	if identity.ReasonOf(err) != identity.ReasonFederationRejected {
		t.Fatalf("reason %q, want FederationRejected: %v", identity.ReasonOf(err), err)
	}
	for _, want := range []string{"AADSTS70021", "system:serviceaccount:thief:" + identity.ProvisionerServiceAccount, clientA} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if arm := w.emu.Audit(emulator.AuditFilter{Service: "arm"}); len(arm) != 0 {
		t.Errorf("%d ARM calls were made, want none", len(arm))
	}
}

// Every way of pointing outside the namespace, or at nothing, is refused with a
// reason the user can act on, before any call to Entra or ARM.
func TestResolutionFailuresAreClearAndCallNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "res-ok", "res-other")
	c := w.c
	tenantNamespace(t, c, "res-ok", clientA)
	tenantNamespace(t, c, "res-other", clientB)
	tenantNamespace(t, c, "res-noclient", "")
	must(t, c.Create(t.Context(), &identityv1alpha1.Identity{
		ObjectMeta: metav1ObjectMeta("res-ok", "ghost"),
		Spec:       identityv1alpha1.IdentitySpec{ServiceAccountName: "missing", SubscriptionID: subID},
	}))
	tenantNamespaceWithoutIdentity(t, c, "res-empty")
	must(t, c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1ObjectMeta("", "res-nosa")}))
	must(t, c.Create(t.Context(), &identityv1alpha1.Identity{
		ObjectMeta: metav1ObjectMeta("res-nosa", "default"),
		Spec:       identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, SubscriptionID: subID},
	}))

	cases := []struct {
		name        string
		obj         client.Object
		reason      string
		msgContains string
	}{
		{"annotation names another namespace", resource("res-ok", map[string]string{identity.AnnotationIdentity: "res-other/default"}), identity.ReasonInvalidIdentityReference, "without a namespace"},
		{"annotation is a path", resource("res-ok", map[string]string{identity.AnnotationIdentity: "../res-other"}), identity.ReasonInvalidIdentityReference, "res-other"},
		{"annotation names an Identity that exists only elsewhere", resource("res-empty", map[string]string{identity.AnnotationIdentity: "default"}), identity.ReasonIdentityNotFound, `no Identity "default" in namespace "res-empty"`},
		{"no default Identity", resource("res-empty", nil), identity.ReasonIdentityNotFound, "never falls back"},
		{"ServiceAccount not the reserved one", resource("res-ok", map[string]string{identity.AnnotationIdentity: "ghost"}), identity.ReasonServiceAccountNotReserved, `ServiceAccount "missing"`},
		{"ServiceAccount missing", resource("res-nosa", nil), identity.ReasonServiceAccountNotFound, `ServiceAccount "` + identity.ProvisionerServiceAccount + `"`},
		{"no client ID anywhere", resource("res-noclient", nil), identity.ReasonMissingClientID, identity.AnnotationClientID},
	}
	b := w.broker()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cred, _, err := b.CredentialFor(t.Context(), tc.obj)
			if cred != nil || err == nil {
				t.Fatal("got a credential")
			}
			if got := identity.ReasonOf(err); got != tc.reason {
				t.Errorf("reason %q, want %q (%v)", got, tc.reason, err)
			}
			if !strings.Contains(err.Error(), tc.msgContains) {
				t.Errorf("message %q lacks %q", err, tc.msgContains)
			}
		})
	}
	if n := w.emu.Counters().Requests; n != 0 {
		t.Errorf("%d calls reached the emulator, want none", n)
	}
}

// Many resources of one namespace share one TokenRequest and one Entra
// exchange per token lifetime, even when they all ask at once.
func TestOneExchangePerIdentityPerTokenLifetime(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "many", "many-b")
	tenantNamespace(t, w.c, "many", clientA)
	tokens := identity.NewTokenCache(identity.APITokenRequester{Client: w.c}, 3600e9)
	creds := identity.NewCredentials(tokens, w.opts)
	b := identity.NewBroker(w.c, creds)

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cred, _, err := b.CredentialFor(t.Context(), resource("many", map[string]string{"i": string(rune('a' + i%26))}))
			if err == nil {
				_, err = cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{w.cloud.ARMScope()}})
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := tokens.Requests(); n != 1 {
		t.Errorf("%d TokenRequests, want 1", n)
	}
	if n := creds.Exchanges(); n != 1 {
		t.Errorf("%d exchanges by the broker, want 1", n)
	}
	if n := w.emu.Counters().TokensIssued; n != 1 {
		t.Errorf("Entra issued %d tokens, want 1", n)
	}
}

// With resolutions cached, a change of the ServiceAccount or the Identity is
// still seen by the next lookup once the informer delivers it.
func TestCachedResolutionFollowsChanges(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "cached", "cached-b")
	c := w.c
	tenantNamespace(t, c, "cached", clientA)
	informers, err := cache.New(w.env.Config, cache.Options{Scheme: w.env.Scheme, DefaultNamespaces: map[string]cache.Config{"cached": {}}})
	if err != nil {
		t.Fatal(err)
	}
	go informers.Start(t.Context())
	b := identity.NewBroker(informers, identity.NewCredentials(identity.NewTokenCache(identity.APITokenRequester{Client: c}, time.Hour), w.opts))
	if err := b.CacheResolutions(t.Context(), informers); err != nil {
		t.Fatal(err)
	}
	informers.WaitForCacheSync(t.Context())
	scopeOf := func() (identity.Scope, error) {
		_, s, err := b.CredentialFor(t.Context(), resource("cached", nil))
		return s, err
	}
	eventually(t, "first resolution", scopeOf, func(s identity.Scope) bool { return s.ClientID == clientA })

	var sa corev1.ServiceAccount
	must(t, c.Get(t.Context(), client.ObjectKey{Namespace: "cached", Name: identity.ProvisionerServiceAccount}, &sa))
	sa.Annotations[identity.AnnotationClientID] = clientA2
	must(t, c.Update(t.Context(), &sa))
	eventually(t, "client ID follows the annotation", scopeOf, func(s identity.Scope) bool { return s.ClientID == clientA2 })

	must(t, c.Delete(t.Context(), &identityv1alpha1.Identity{ObjectMeta: metav1ObjectMeta("cached", "default")}))
	eventually(t, "deleted Identity is noticed", func() (string, error) {
		_, err := scopeOf()
		return identity.ReasonOf(err), nil
	}, func(r string) bool { return r == identity.ReasonIdentityNotFound })
}

// The Identity controller's check and the ARM clients ask Entra for the same
// token, so an identity costs one exchange, not one for each.
func TestIdentityCheckAndARMShareOneExchange(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "share", "share-b")
	tenantNamespace(t, w.c, "share", clientA)
	b := w.broker()
	cred, _, err := b.CredentialFor(t.Context(), resource("share", nil))
	if err != nil {
		t.Fatal(err)
	}
	// What the Identity controller asks for.
	if _, err := cred.GetToken(t.Context(), policy.TokenRequestOptions{Scopes: []string{w.cloud.ARMScope()}, EnableCAE: true}); err != nil {
		t.Fatal(err)
	}
	cl, _, err := b.ARMClientFor(t.Context(), resource("share", nil))
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(t.Context(), http.MethodGet, runtime.JoinPaths(cl.Endpoint(), "/subscriptions/"+subID+"/resourcegroups/share-x?api-version=2021-04-01"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cl.Pipeline().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET of a missing group: %s", resp.Status)
	}
	if n := w.emu.Counters().TokensIssued; n != 1 {
		t.Errorf("Entra issued %d tokens for one identity's check and ARM call, want 1", n)
	}
}

// Each exchange with Entra ID is logged with the principal it gave, and each
// refusal with its reason; a cached access token logs nothing; no line holds
// a token.
func TestExchangesAreLogged(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "logx-a", "logx-thief")
	tenantNamespace(t, w.c, "logx-a", clientA)
	tenantNamespace(t, w.c, "logx-thief", clientA) // clientA trusts logx-a only
	var out strings.Builder
	var mu sync.Mutex
	log := funcr.NewJSON(func(obj string) { mu.Lock(); defer mu.Unlock(); out.WriteString(obj + "\n") }, funcr.Options{})
	ctx := ctrl.LoggerInto(t.Context(), log)
	b := w.broker()
	opts := policy.TokenRequestOptions{Scopes: []string{w.cloud.ARMScope()}}

	cred, _, err := b.CredentialFor(ctx, resource("logx-a", nil))
	must(t, err)
	for range 2 { // the second is served from azidentity's cache
		if _, err := cred.GetToken(ctx, opts); err != nil {
			t.Fatal(err)
		}
	}
	thief, _, err := b.CredentialFor(ctx, resource("logx-thief", nil))
	must(t, err)
	if _, err := thief.GetToken(ctx, opts); err == nil {
		t.Fatal("the thief got a token")
	}

	text := out.String()
	if n := strings.Count(text, `"msg":"token exchange"`); n != 1 {
		t.Errorf("%d exchange lines, want 1:\n%s", n, text)
	}
	for _, want := range []string{
		`"serviceAccount":"logx-a/` + identity.ProvisionerServiceAccount + `","clientID":"` + clientA + `"`,
		`"principalID":"` + w.principal(t, clientA) + `"`,
		`"msg":"token exchange refused"`,
		`"serviceAccount":"logx-thief/` + identity.ProvisionerServiceAccount + `"`,
		`"reason":"` + identity.ReasonFederationRejected + `"`,
		"AADSTS70021",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "eyJ") {
		t.Errorf("the log holds a token:\n%s", text)
	}
}
