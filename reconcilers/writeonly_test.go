package reconcilers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
)

// The digest in status changes with the password, never shows it, differs
// between objects with the same password, and is empty without one.
func TestWriteOnlyHash(t *testing.T) {
	paths := []string{"properties.administratorLoginPassword"}
	obj := func(uid string) *dbforpostgresqlv1alpha1.FlexibleServer {
		return &dbforpostgresqlv1alpha1.FlexibleServer{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}}
	}
	body := func(pw string) map[string]any {
		return map[string]any{"location": "westeurope", "properties": map[string]any{"version": "16", "administratorLoginPassword": pw}}
	}
	a := writeOnlyHash(obj("uid-1"), body("Passw0rd-one"), paths)
	if !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 || strings.Contains(a, "Passw0rd") {
		t.Fatalf("digest %q", a)
	}
	if again := writeOnlyHash(obj("uid-1"), body("Passw0rd-one"), paths); again != a {
		t.Error("the same password gives another digest: every sync would write")
	}
	if b := writeOnlyHash(obj("uid-1"), body("Passw0rd-two"), paths); b == a {
		t.Error("a rotated password gives the same digest")
	}
	if other := writeOnlyHash(obj("uid-2"), body("Passw0rd-one"), paths); other == a {
		t.Error("two objects with the same password have the same digest")
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
