package sdk

import (
	"go/types"
	"regexp"
	"strings"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// armIDDoc matches docs that say a string holds an ARM resource ID.
var armIDDoc = regexp.MustCompile(`(?i)\b(arm|azure)?\s*resource\s*(id|ids|identifier|uri)\b|\bARM id\b|/subscriptions/`)

// referenceOf decides whether a field holds the ARM ID of another resource:
//   - its type is a SubResource (a struct whose only writable field is ID);
//   - or it is a string (or strings) named …ID/…Ids whose doc says "resource ID".
//
// The resource's own id (the ID of a resource-shaped struct) is not a reference.
func (g *graph) referenceOf(owner string, st *types.Struct, f *types.Var, mf model.Field) *model.Flag {
	if n := elemNamed(f.Type()); n != nil && n.Obj().Pkg() == g.p.Types {
		if sub, ok := n.Underlying().(*types.Struct); ok && g.subResource(n.Obj().Name(), sub) {
			return &model.Flag{Source: "sdk", Reason: "type " + n.Obj().Name() + " holds only an ARM ID"}
		}
	}
	if !isStrings(mf.Type) {
		return nil
	}
	name := f.Name()
	// A resource's own id is not a reference, nor is a SubResource's id: the field that
	// holds the SubResource is.
	if name == "ID" && (resourceShaped(st) || owner == g.root || g.subResource(owner, st)) {
		return nil
	}
	if !(strings.HasSuffix(name, "ID") || strings.HasSuffix(name, "IDs") || strings.HasSuffix(name, "Ids") ||
		strings.HasSuffix(name, "ResourceURI") || strings.HasSuffix(name, "ResourceIdentifier")) {
		return nil
	}
	if m := armIDDoc.FindString(mf.Doc); m != "" {
		return &model.Flag{Source: "sdk", Reason: "named " + name + ", doc says " + strings.TrimSpace(m)}
	}
	return nil
}

var (
	secretName = regexp.MustCompile(`(?i)(password|secret|passphrase|connectionstring|(^|primary|secondary|access|account|shared|master|storage)keys?$)`)
	notSecret  = regexp.MustCompile(`(?i)(name|uri|url|id|ids|type|version|expiry|expiration|time|enabled|permissions|source|public|identifier|policy|policies|settings|vault|reference)$`)
	// secretOwner: types whose Value is the secret (AccountKey, APIKey, RegistryPassword).
	secretOwner = regexp.MustCompile(`(Key|Secret|Password|Credential)(s|Object)?$`)
)

// secretOf decides whether a string field carries a secret, by its name (…Password,
// …Secret, primaryKey, …ConnectionString). Docs are not used: they mention passwords
// around fields that are not (a server's administratorLogin). Only unnamed strings
// qualify: enums and named types never hold secrets.
//
// A field named Value of a key, secret, password or credential type (storage's
// AccountKey.value) is the secret itself.
func secretOf(owner string, f *types.Var, mf model.Field) *model.Flag {
	if (mf.Type.Kind != model.KindString && mf.Type.Kind != model.KindBytes) || mf.Type.Name != "" {
		return nil
	}
	name := f.Name()
	if notSecret.MatchString(name) {
		return nil
	}
	direction := "sent to Azure"
	if mf.ReadOnly {
		direction = "returned by Azure"
	}
	if name == "Value" && secretOwner.MatchString(owner) {
		return &model.Flag{Source: "sdk", Reason: "the value of " + owner + " (" + direction + ")"}
	}
	if m := secretName.FindString(name); m != "" {
		return &model.Flag{Source: "sdk", Reason: "named " + name + " (" + direction + ")"}
	}
	return nil
}

func isStrings(r model.TypeRef) bool {
	if r.Kind == model.KindSlice {
		r = *r.Elem
	}
	return r.Kind == model.KindString && r.Name == ""
}
