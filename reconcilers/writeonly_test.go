package reconcilers

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
)

// The digest in status changes with the password, never shows it, differs
// between keys (Secrets) with the same password, and is empty without one.
func TestWriteOnlyHash(t *testing.T) {
	paths := []string{"properties.administratorLoginPassword"}
	obj := func(uid string) []byte { return []byte(uid) }
	body := func(pw string) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"version": "16", "administratorLoginPassword": pw}}
	}
	a := writeOnlyHash(obj("uid-1"), body("Passw0rd-one"), paths)
	if !strings.HasPrefix(a, "hmac-sha256:") || len(a) != len("hmac-sha256:")+64 || strings.Contains(a, "Passw0rd") {
		t.Fatalf("digest %q", a)
	}
	if again := writeOnlyHash(obj("uid-1"), body("Passw0rd-one"), paths); again != a {
		t.Error("the same password gives another digest: every sync would write")
	}
	if b := writeOnlyHash(obj("uid-1"), body("Passw0rd-two"), paths); b == a {
		t.Error("a rotated password gives the same digest")
	}
	if other := writeOnlyHash(obj("uid-2"), body("Passw0rd-one"), paths); other == a {
		t.Error("two Secrets with the same password give the same digest")
	}
	if none := writeOnlyHash(obj("uid-1"), map[string]any{"properties": map[string]any{"version": "16"}}, paths); none != "" {
		t.Errorf("no password, digest %q", none)
	}
	if none := writeOnlyHash(obj("uid-1"), body("Passw0rd-one"), nil); none != "" {
		t.Errorf("a kind without write-only paths, digest %q", none)
	}
	if got := writeOnlyPaths(body("x"), paths); got != "properties.administratorLoginPassword" {
		t.Errorf("paths %q", got)
	}
}

// The key is the UIDs of the Secrets the values come from, which a reader of
// the object's status does not see; without one, the object's UID.
func TestWriteOnlyKey(t *testing.T) {
	ctx := t.Context()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg", UID: "secret-uid"}}
	r := fake.NewClientBuilder().WithObjects(secret).Build()
	fs := &dbforpostgresqlv1alpha1.FlexibleServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: types.UID("object-uid")}}
	if got := string(writeOnlyKey(ctx, r, fs, []Reference{{Kind: ReferenceSecret, Name: "pg"}, {Kind: ReferenceConfigMap, Name: "cfg"}})); got != "secret-uid" {
		t.Errorf("key %q, want the Secret's UID", got)
	}
	if got := string(writeOnlyKey(ctx, r, fs, []Reference{{Kind: ReferenceSecret, Name: "missing"}})); got != "object-uid" {
		t.Errorf("key %q without a readable Secret, want the object's UID", got)
	}
}
