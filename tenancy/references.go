package tenancy

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SameNamespace returns a *CrossNamespaceError when a reference from obj
// names another namespace. An empty refNamespace means "obj's namespace" and
// always passes. kind is the referenced kind ("Secret", "Identity",
// "ResourceGroup") and appears in the message.
//
// Every reference the operator follows (owners, secret and config-map
// references, identity references) goes through this one check: a namespace's
// identity must never be usable by, or lend data to, another namespace.
func SameNamespace(obj client.Object, kind, refNamespace, refName string) error {
	if refNamespace == "" || refNamespace == obj.GetNamespace() {
		return nil
	}
	return &CrossNamespaceError{
		ObjectKind:      obj.GetObjectKind().GroupVersionKind().Kind,
		ObjectNamespace: obj.GetNamespace(),
		ObjectName:      obj.GetName(),
		RefKind:         kind,
		RefNamespace:    refNamespace,
		RefName:         refName,
	}
}
