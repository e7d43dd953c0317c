package vap

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// WriteYAML writes the policies and bindings as one multi-document YAML
// stream for kubectl apply. What was left out is listed first, as comments,
// so a file made from it says what it does not enforce.
func (r *Result) WriteYAML(w io.Writer) error {
	var b strings.Builder
	if len(r.Unsupported) > 0 {
		b.WriteString("# Not converted to ValidatingAdmissionPolicy:\n")
		for _, u := range r.Unsupported {
			fmt.Fprintf(&b, "#   %s\n", strings.ReplaceAll(u.Error(), "\n", " "))
		}
	}
	for _, p := range r.Pairs {
		for _, obj := range []runtime.Object{p.Policy, p.Binding} {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				return err
			}
			// Server-set fields would only be noise in a manifest.
			delete(u, "status")
			if meta, ok := u["metadata"].(map[string]any); ok {
				delete(meta, "creationTimestamp")
			}
			data, err := yaml.Marshal(u)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(data)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
