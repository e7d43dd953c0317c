package api

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) { return CRDsOf(nil) }

// CRDName is one generated CRD's kind and name (plural.group).
type CRDName struct {
	schema.GroupKind
	Name string
}

// CRDNames lists the generated CRDs' kinds and names without decoding any: what an
// operator that installs CRDs on demand knows of those it may install.
func CRDNames() ([]CRDName, error) {
	var out []CRDName
	_, err := CRDsOf(func(gk schema.GroupKind, name string) bool {
		out = append(out, CRDName{GroupKind: gk, Name: name})
		return false
	})
	return out, err
}

// CRDsOf returns the generated CustomResourceDefinitions of the kinds keep says yes to
// (every one when keep is nil), given each one's group and kind and its CRD's name. Only
// those are decoded: decoding all of them takes about a second of CPU, for a platform's
// or a test's few kinds as for all.
func CRDsOf(keep func(gk schema.GroupKind, name string) bool) ([]*apiextensionsv1.CustomResourceDefinition, error) {
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
		var gk schema.GroupKind
		var name string
		if keep != nil {
			if gk, name, err = crdKindOf(f, data); err != nil {
				return nil, err
			}
			if !keep(gk, name) {
				continue
			}
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if keep != nil && (crd.Name != name || crd.Spec.Names.Kind != gk.Kind || crd.Spec.Group != gk.Group) {
			return nil, fmt.Errorf("%s: the CRD %s of %s.%s was read as %s of %s", f, crd.Name, crd.Spec.Names.Kind, crd.Spec.Group, name, gk)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// crdKindOf reads a CRD file's group, kind and name without decoding it: the group and
// plural from its file name (group_plural.yaml, as controller-gen writes it), the kind from
// the first "kind:" under spec.names. CRDsOf checks them against the decoded CRD.
func crdKindOf(file string, data []byte) (schema.GroupKind, string, error) {
	group, plural, ok := strings.Cut(strings.TrimSuffix(path.Base(file), ".yaml"), "_")
	_, names, found := bytes.Cut(data, []byte("\n  names:"))
	if ok && found {
		if _, rest, found := bytes.Cut(names, []byte("\n    kind: ")); found {
			kind, _, _ := bytes.Cut(rest, []byte("\n"))
			if len(kind) > 0 {
				return schema.GroupKind{Group: group, Kind: string(kind)}, plural + "." + group, nil
			}
		}
	}
	return schema.GroupKind{}, "", fmt.Errorf("%s: no group_plural name or spec.names.kind", file)
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
