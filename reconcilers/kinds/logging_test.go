package kinds_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/reconcilers"
)

// logBuffer is the operator's log output, safe for its goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines are the JSON log lines, decoded.
func (b *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// find returns the Info lines with message msg for the object name (and the
// other fields given).
func (b *logBuffer) find(t *testing.T, msg string, fields map[string]string) []map[string]any {
	t.Helper()
	var out []map[string]any
next:
	for _, l := range b.lines(t) {
		if l["level"] != "info" || l["msg"] != msg {
			continue
		}
		for k, v := range fields {
			if s, _ := l[k].(string); !strings.EqualFold(s, v) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// The operator logs one Info line per decision (create, update with the
// differing path, deny with its reason, delete, token exchange), each with
// namespace, kind, name, ARM ID and principal, never a password, a key or a
// token; a resync that writes nothing logs nothing at Info.
func TestDecisionLog(t *testing.T) {
	t.Parallel()
	const ns = "oplog"
	const password = "L0g-Never-Sees-This-Passw0rd"
	var out logBuffer
	log := zap.New(zap.WriteTo(&out), zap.Level(zapcore.DebugLevel))
	s := &stack{stacktest.NewLogged(t, stacktest.DefaultConfig(), log, ns)}
	ctx := t.Context()
	clientID := s.ClientID[ns]

	s.Create(t, resourceGroup(ns, "oplog-rg", nil, nil))
	s.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-admin"}, StringData: map[string]string{"password": password}})
	srv := &dbforpostgresqlv1alpha1.FlexibleServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg-log"},
		Spec: dbforpostgresqlv1alpha1.FlexibleServerSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "oplog-rg"}, Location: "westeurope", Version: "16",
			Sku:                        dbforpostgresqlv1alpha1.FlexibleServerSku{Name: "Standard_B1ms", Tier: "Burstable"},
			AdministratorLogin:         "pgadmin",
			AdministratorLoginPassword: &azurev1alpha1.SecretKeyReference{Name: "pg-admin", Key: "password"},
		},
	}
	sa := &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "oplogsa"},
		Spec: storagev1alpha1.StorageAccountSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "oplog-rg"}, Location: "westeurope", Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{Secrets: &storagev1alpha1.StorageAccountOperatorSecrets{
				Key1: &azurev1alpha1.SecretDestination{Name: "oplogsa-keys", Key: "key1"},
			}},
		},
	}
	// Outside the Tenant's resource groups (oplog-*): denied.
	denied := resourceGroup(ns, "elsewhere-rg", nil, nil)
	s.Create(t, srv)
	s.Create(t, sa)
	s.Create(t, denied)
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	s.WaitReady(t, denied, metav1.ConditionFalse, "TenantPolicyDenied")
	keys, _ := s.secretData(t, ns, "oplogsa-keys")
	if keys["key1"] == "" {
		t.Fatal("no key exported")
	}

	// Every create, with the ARM ID and the principal.
	for _, c := range []struct{ kind, name, id string }{
		{"ResourceGroup", "oplog-rg", rgID("oplog-rg")},
		{"FlexibleServer", "pg-log", flexibleServerID("oplog-rg", "pg-log")},
		{"StorageAccount", "oplogsa", storageAccountID("oplog-rg", "oplogsa")},
	} {
		got := out.find(t, reconcilers.DecisionCreate, map[string]string{"namespace": ns, "kind": c.kind, "name": c.name, "armID": c.id, "clientID": clientID})
		if len(got) != 1 {
			t.Errorf("%d create lines for %s %s, want 1", len(got), c.kind, c.name)
		}
	}
	if got := out.find(t, reconcilers.DecisionCreate, map[string]string{"name": "pg-log", "principalID": s.Principal[ns]}); len(got) != 1 {
		t.Errorf("the create line of pg-log does not name principal %s", s.Principal[ns])
	}
	until(t, "deny line", func() bool {
		return len(out.find(t, reconcilers.DecisionDeny, map[string]string{"name": "elsewhere-rg", "kind": "ResourceGroup", "reason": "TenantPolicyDenied", "by": "tenant", "armID": rgID("elsewhere-rg"), "clientID": clientID})) == 1
	})
	if got := out.find(t, "token exchange", map[string]string{"clientID": clientID, "principalID": s.Principal[ns], "tenantID": stacktest.TenantID}); len(got) == 0 {
		t.Error("no token exchange line with the principal")
	}

	// An update names the differing path.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(sa), sa))
	sa.Spec.Tags = map[string]string{"team": "logs"}
	must(t, s.Client.Update(ctx, sa))
	until(t, "update line", func() bool {
		return len(out.find(t, reconcilers.DecisionUpdate, map[string]string{"name": "oplogsa", "diff": "tags.team", "clientID": clientID})) == 1
	})
	s.WaitReady(t, sa, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	// A resync that writes nothing is quiet at Info.
	path := "/flexibleServers/pg-log"
	infoOf := func(name string) int {
		n := 0
		for _, l := range out.lines(t) {
			if l["level"] == "info" && l["name"] == name {
				n++
			}
		}
		return n
	}
	before, calls := infoOf("pg-log"), len(s.ARMCalls(path))
	s.Touch(t, srv, "1")
	s.Settled(t, path, calls+1)
	if after := infoOf("pg-log"); after != before {
		t.Errorf("a resync that writes nothing logged %d Info lines", after-before)
	}
	quiet := false
	for _, l := range out.lines(t) {
		if l["name"] == "pg-log" && l["msg"] == "reconciled" && l["level"] == "debug" {
			quiet = true
		}
	}
	if !quiet {
		t.Error("no V(1) line of the resync")
	}

	// Deleting: the DELETE, then its end.
	must(t, s.Client.Delete(ctx, sa))
	until(t, "account gone", func() bool { return s.Gone(sa) })
	if got := out.find(t, reconcilers.DecisionDelete, map[string]string{"name": "oplogsa", "armID": storageAccountID("oplog-rg", "oplogsa"), "clientID": clientID}); len(got) != 2 {
		t.Errorf("%d delete lines, want 2 (the DELETE and its end)", len(got))
	}

	text := out.String()
	for what, secret := range map[string]string{"password": password, "storage key": keys["key1"], "JWT": "eyJ"} {
		if strings.Contains(text, secret) {
			t.Errorf("the log holds a %s", what)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", text)
	}
}
