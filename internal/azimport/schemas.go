package azimport

import (
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/aztenant/aztenant/api"
)

// specSchemas are the OpenAPI schemas of the spec of every kind, from the
// CRDs the API server validates manifests with, by group, version and kind.
// They are read once, when the first resource is imported.
var specSchemas = sync.OnceValues(func() (map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps, error) {
	crds, err := api.CRDs()
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			if spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]; ok {
				out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = &spec
			}
		}
	}
	return out, nil
})

// specSchema is the schema of gvk's spec.
func specSchema(gvk schema.GroupVersionKind) (*apiextensionsv1.JSONSchemaProps, error) {
	all, err := specSchemas()
	if err != nil {
		return nil, err
	}
	s, ok := all[gvk]
	if !ok {
		return nil, fmt.Errorf("no CRD schema for %s", gvk)
	}
	return s, nil
}
