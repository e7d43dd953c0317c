package sdk

import (
	"path/filepath"
	"strings"
)

// Wire is what the SDK says of one struct field on the wire: its JSON name and format
// (models_serde.go) and whether its doc marks it READ-ONLY (models.go).
type Wire struct {
	// JSON is the property name ("" for an additional-properties map).
	JSON string
	// Format is the wire format of a time or bytes field (rfc3339, unix, date, base64…).
	Format string
	// Additional: the field is a map whose entries are the object's other properties.
	Additional bool
	// ReadOnly: the field's doc starts with READ-ONLY.
	ReadOnly bool
}

// Wire returns what the SDK's serde code and docs say of the Go field goField of the
// package's struct typeName; false when the serde code does not name the field (a
// response envelope's embedded model, a header value).
func (p *Package) Wire(typeName, goField string) (Wire, bool) {
	sf, ok := p.serde[typeName][goField]
	if !ok || (sf.JSON == "" && !sf.Additional) {
		return Wire{}, false
	}
	return Wire{JSON: sf.JSON, Format: sf.Format, Additional: sf.Additional,
		ReadOnly: strings.HasPrefix(p.fieldDocs[typeName][goField], "READ-ONLY;")}, true
}

// Discriminator returns the property and value a union variant's MarshalJSON writes
// whatever the struct holds (kind: "StorageV2"), if typeName is such a variant.
func (p *Package) Discriminator(typeName string) (json, value string, ok bool) {
	d, ok := p.discriminators[typeName]
	return d.JSON, d.Value, ok
}

// Dir is the directory of the package's source in the module cache, where its example
// tests (*_client_example_test.go) sit beside it.
func (p *Package) Dir() string {
	if len(p.Files) == 0 {
		return ""
	}
	return filepath.Dir(p.Fset.File(p.Files[0].Pos()).Name())
}
