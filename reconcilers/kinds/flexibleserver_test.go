package kinds_test

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

func flexibleServerID(rg, name string) string {
	return rgID(rg) + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/" + name
}

// A PostgreSQL server whose password Secret is missing says so and writes
// nothing; once the Secret exists the server is created with one PUT, its
// database and firewall rule follow it, the password (write-only) never causes
// a write at resync and never shows in status or events, the host name is
// exported to a ConfigMap, a firewall rule widened in the portal is narrowed
// again, and deletion removes all three.
func TestFlexibleServerLifecycle(t *testing.T) {
	t.Parallel()
	const ns = "pg"
	const password = "Sup3r-S3cret-Passw0rd"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "pg-rg", nil, nil))

	srv := &dbforpostgresqlv1alpha1.FlexibleServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-app"},
		Spec: dbforpostgresqlv1alpha1.FlexibleServerSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "pg-rg"}, Location: "westeurope", Version: "16",
			Sku:                        dbforpostgresqlv1alpha1.FlexibleServerSku{Name: "Standard_B1ms", Tier: "Burstable"},
			AdministratorLogin:         "pgadmin",
			AdministratorLoginPassword: &azurev1alpha1.SecretKeyReference{Name: "pg-admin", Key: "password"},
			OperatorSpec: &dbforpostgresqlv1alpha1.FlexibleServerOperatorSpec{ConfigMaps: &dbforpostgresqlv1alpha1.FlexibleServerOperatorConfigMaps{
				FullyQualifiedDomainName: &azurev1alpha1.ConfigMapDestination{Name: "pg-app-conn", Key: "host"},
			}},
		},
	}
	db := &dbforpostgresqlv1alpha1.FlexibleServersDatabase{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orders"},
		Spec:       dbforpostgresqlv1alpha1.FlexibleServersDatabaseSpec{Owner: &azurev1alpha1.OwnerReference{Name: "pg-app"}, Charset: "UTF8"},
	}
	rule := &dbforpostgresqlv1alpha1.FlexibleServersFirewallRule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "office", Annotations: map[string]string{reconcilers.AnnotationSyncPeriod: "1s"}},
		Spec: dbforpostgresqlv1alpha1.FlexibleServersFirewallRuleSpec{Owner: &azurev1alpha1.OwnerReference{Name: "pg-app"},
			StartIPAddress: "203.0.113.1", EndIPAddress: "203.0.113.9"},
	}
	s.Create(t, srv)
	s.Create(t, db)
	s.Create(t, rule)
	s.WaitReady(t, srv, metav1.ConditionFalse, reconcilers.ReasonReferenceNotFound)
	if msg := meta.FindStatusCondition(srv.Status.Conditions, "Ready").Message; !strings.Contains(msg, `Secret "pg-admin"`) {
		t.Errorf("message %q does not name the missing Secret", msg)
	}
	s.WaitReady(t, db, metav1.ConditionUnknown, reconcilers.ReasonWaitingForOwner)
	path := "/flexibleServers/pg-app"
	if got := methods(s.ARMCalls(path)); strings.Contains(got, "PUT") {
		t.Fatalf("a PUT without the password: %q", got)
	}

	// A Secret without the key is still refused, by name.
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-admin"}, StringData: map[string]string{"pass": password}})
	until(t, "missing key reported", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(srv), srv))
		c := meta.FindStatusCondition(srv.Status.Conditions, "Ready")
		return c != nil && strings.Contains(c.Message, `no key "password"`)
	})
	var sec corev1.Secret
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "pg-admin"}, &sec))
	sec.StringData = map[string]string{"password": password}
	must(t, s.Client.Update(ctx, &sec))

	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, db, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, rule, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	id := flexibleServerID("pg-rg", "pg-app")
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 1 {
		t.Fatalf("%d PUTs for the create, want 1", n)
	}
	if srv.Status.FullyQualifiedDomainName != "pg-app.postgres.database.azure.com" || srv.Status.State != "Ready" {
		t.Errorf("status %+v", srv.Status)
	}
	if props := s.AzureBody(t, id)["properties"].(map[string]any); props["administratorLogin"] != "pgadmin" {
		t.Errorf("properties in Azure: %v", props)
	}
	if got := s.AzureBody(t, id+"/databases/orders")["properties"].(map[string]any)["charset"]; got != "UTF8" {
		t.Errorf("database charset %v", got)
	}
	var cm corev1.ConfigMap
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "pg-app-conn"}, &cm))
	if cm.Data["host"] != "pg-app.postgres.database.azure.com" || !metav1.IsControlledBy(&cm, srv) {
		t.Errorf("ConfigMap %v owners %v", cm.Data, cm.OwnerReferences)
	}

	// The write-only password is not drift: a resync writes nothing.
	n := len(s.ARMCalls(path))
	s.Touch(t, srv, "1")
	if got := s.Settled(t, path, n+1); strings.Count(got, "PUT") != 1 {
		t.Errorf("a resync made %q in all, want no second PUT", got)
	}

	// A tag change writes exactly once.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(srv), srv))
	srv.Spec.Tags = map[string]string{"env": "dev"}
	must(t, s.Client.Update(ctx, srv))
	until(t, "tag in Azure", func() bool { return s.azureTags(t, id)["env"] == "dev" })
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	if n := strings.Count(methods(s.ARMCalls(path)), "PUT"); n != 2 {
		t.Errorf("%d PUTs after one spec change, want 2", n)
	}

	// The password never leaves the Secret: not in status, not in events.
	raw, _ := json.Marshal(srv)
	if strings.Contains(string(raw), password) {
		t.Error("the password is in the object")
	}
	var evs corev1.EventList
	must(t, s.Client.List(ctx, &evs, client.InNamespace(ns)))
	for _, e := range evs.Items {
		if strings.Contains(e.Message, password) {
			t.Errorf("the password is in an event: %s", e.Reason)
		}
	}

	// A firewall rule widened in the portal is narrowed at the next sync.
	rulePath := "/flexibleServers/pg-app/firewallRules/office"
	_, err := s.Emu.PatchResource(ctx, id+"/firewallRules/office", []byte(`{"properties":{"startIpAddress":"0.0.0.0","endIpAddress":"255.255.255.255"}}`))
	must(t, err)
	until(t, "rule narrowed again", func() bool {
		p := s.AzureBody(t, id+"/firewallRules/office")["properties"].(map[string]any)
		return p["startIpAddress"] == "203.0.113.1" && p["endIpAddress"] == "203.0.113.9"
	})
	if n := strings.Count(methods(s.ARMCalls(rulePath)), "PUT"); n != 2 {
		t.Errorf("%d PUTs on the rule, want the create and one correction", n)
	}

	for _, o := range []client.Object{rule, db, srv} {
		must(t, s.Client.Delete(ctx, o))
	}
	until(t, "objects gone", func() bool { return s.Gone(rule) && s.Gone(db) && s.Gone(srv) })
	if _, err := s.Emu.Resource(id); err == nil {
		t.Error("the server still exists in Azure")
	}
}

// armPuts records the bodies of the PUTs the operator sends to ARM: the
// emulator, like Azure, drops a write-only password and its audit log keeps
// no bodies, so only the request shows which password was sent.
type armPuts struct {
	mu     sync.Mutex
	bodies map[string][]map[string]any // by lower-cased path
}

func (p *armPuts) on(pathSuffix string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	for path, b := range p.bodies {
		if strings.HasSuffix(path, strings.ToLower(pathSuffix)) {
			return append([]map[string]any(nil), b...)
		}
	}
	return nil
}

// recordPuts restarts the operator with its ARM endpoint behind a recording
// TLS proxy to the emulator (Entra stays the emulator).
func (s *stack) recordPuts(t *testing.T) *armPuts {
	t.Helper()
	rec := &armPuts{bodies: map[string][]map[string]any{}}
	emu, err := url.Parse(s.Emu.URL())
	must(t, err)
	proxy := httputil.NewSingleHostReverseProxy(emu) // keeps the Host header: LRO URLs point back at the proxy
	proxy.Transport = s.Emu.HTTPClient().Transport
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			raw, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(raw))
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			rec.mu.Lock()
			k := strings.ToLower(r.URL.Path)
			rec.bodies[k] = append(rec.bodies[k], body)
			rec.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.StopManager()
	s.Cloud.ARMEndpoint = srv.URL
	s.Cloud.CABundle = append(s.Emu.CAPEM(), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})...)
	s.StartManager(t)
	return rec
}

func passwordOf(body map[string]any) any {
	p, _ := body["properties"].(map[string]any)
	return p["administratorLoginPassword"]
}

// Rotating the administrator password in its Secret writes it to Azure,
// although ARM never returns the password to compare: exactly one PUT,
// carrying the new password. An idle resync writes nothing, a change to
// another Secret of the namespace does not even read Azure, the password
// shows nowhere in the object or its events, a deleted Secret is reported by
// name, and the same password in a recreated Secret is not written again.
func TestFlexibleServerPasswordRotation(t *testing.T) {
	t.Parallel()
	const ns = "pg-rotate"
	const oldPassword, newPassword = "Old-Passw0rd-1111", "New-Passw0rd-2222"
	s := newStack(t, ns)
	puts := s.recordPuts(t)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "pg-rotate-rg", nil, nil))
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-admin"}, StringData: map[string]string{"password": oldPassword}})
	srv := &dbforpostgresqlv1alpha1.FlexibleServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-rot"},
		Spec: dbforpostgresqlv1alpha1.FlexibleServerSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "pg-rotate-rg"}, Location: "westeurope", Version: "16",
			Sku:                        dbforpostgresqlv1alpha1.FlexibleServerSku{Name: "Standard_B1ms", Tier: "Burstable"},
			AdministratorLogin:         "pgadmin",
			AdministratorLoginPassword: &azurev1alpha1.SecretKeyReference{Name: "pg-admin", Key: "password"},
		},
	}
	s.Create(t, srv)
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	path := "/flexibleServers/pg-rot"
	putCount := func() int { return strings.Count(methods(s.ARMCalls(path)), "PUT") }
	if n, sent := putCount(), puts.on(path); n != 1 || len(sent) != 1 || passwordOf(sent[0]) != oldPassword {
		t.Fatalf("create: %d PUTs, sent %d bodies; want one carrying the password", n, len(sent))
	}

	// Rotate the password in the Secret.
	var sec corev1.Secret
	must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "pg-admin"}, &sec))
	sec.StringData = map[string]string{"password": newPassword}
	must(t, s.Client.Update(ctx, &sec))
	until(t, "the new password sent to Azure", func() bool { return putCount() >= 2 })
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	// A reconcile after the rotation's writes nothing more.
	s.ReadAgain(t, srv.Status.ID, 1, func() { s.Touch(t, srv, "after-rotation") })
	if n, sent := putCount(), puts.on(path); n != 2 || len(sent) != 2 || passwordOf(sent[1]) != newPassword {
		t.Fatalf("rotation: %d PUTs in all, want 2, the second with the new password", n)
	}

	// An idle resync writes nothing.
	n := len(s.ARMCalls(path))
	s.Touch(t, srv, "1")
	if got := s.Settled(t, path, n+1); strings.Count(got, "PUT") != 2 {
		t.Errorf("a resync after the rotation made %q in all, want no third PUT", got)
	}

	// Another Secret of the namespace changing is none of the server's business: no write.
	// (A read may still come from the resync above, whose last reconcile can end after
	// Settled saw the calls it waited for: seen once in CI, so reads are not counted.)
	n = len(s.ARMCalls(path))
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unrelated"}, StringData: map[string]string{"x": "1"}})
	time.Sleep(time.Second)
	if got := methods(s.ARMCalls(path)[n:]); strings.Contains(got, "PUT") || strings.Contains(got, "PATCH") || strings.Contains(got, "DELETE") {
		t.Errorf("an unrelated Secret made the server write to Azure: %q", got)
	}

	// The password never leaves the Secret.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(srv), srv))
	raw, _ := json.Marshal(srv)
	var evs corev1.EventList
	must(t, s.Client.List(ctx, &evs, client.InNamespace(ns)))
	for _, pw := range []string{oldPassword, newPassword} {
		if strings.Contains(string(raw), pw) {
			t.Error("a password is in the object")
		}
		for _, e := range evs.Items {
			if strings.Contains(e.Message, pw) {
				t.Errorf("a password is in an event: %s", e.Reason)
			}
		}
	}

	// The Secret deleted: the server says which one is missing.
	must(t, s.Client.Delete(ctx, &sec))
	s.WaitReady(t, srv, metav1.ConditionFalse, reconcilers.ReasonReferenceNotFound)
	if msg := meta.FindStatusCondition(srv.Status.Conditions, "Ready").Message; !strings.Contains(msg, `Secret "pg-admin" does not exist`) {
		t.Errorf("message %q does not name the missing Secret", msg)
	}
	// Recreated, even with the password Azure already has: a new Secret
	// (the digest is keyed with its UID) is written once, then nothing more.
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-admin"}, StringData: map[string]string{"password": newPassword}})
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.ReadAgain(t, srv.Status.ID, 1, func() { s.Touch(t, srv, "after-recreate") })
	if n := putCount(); n != 3 {
		t.Errorf("%d PUTs after the Secret was recreated and the server resynced, want 3 (one for the new Secret)", n)
	}
}
