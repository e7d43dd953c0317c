package api

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	cachev1alpha1 "github.com/aztenant/aztenant/api/cache/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

//go:embed crds/*.yaml
var crdFiles embed.FS

var schemeBuilder = runtime.SchemeBuilder{
	identityv1alpha1.AddToScheme,
	tenancyv1alpha1.AddToScheme,
	planv1alpha1.AddToScheme,
	resourcesv1alpha1.AddToScheme,
	managedidentityv1alpha1.AddToScheme,
	authorizationv1alpha1.AddToScheme,
	storagev1alpha1.AddToScheme,
	cachev1alpha1.AddToScheme,
	dbforpostgresqlv1alpha1.AddToScheme,
	containerservicev1alpha1.AddToScheme,
	generatedGroups.AddToScheme,
}

// AddToScheme registers every API group of the project.
var AddToScheme = schemeBuilder.AddToScheme

// CRDs returns the generated CustomResourceDefinitions, one per kind.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(crdFiles, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		data, err := crdFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// CRD returns the generated CustomResourceDefinition named name (plural.group), read
// alone: CRDs decodes every one.
func CRD(name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	plural, group, _ := strings.Cut(name, ".")
	data, err := crdFiles.ReadFile("crds/" + group + "_" + plural + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no generated CRD %s: %w", name, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("CRD %s: %w", name, err)
	}
	if crd.Name != name {
		return nil, fmt.Errorf("CRD file of %s names %s", name, crd.Name)
	}
	return crd, nil
}
