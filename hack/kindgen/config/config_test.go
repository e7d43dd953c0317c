package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/config"
)

const realConfig = "../../../api/kinds.yaml"

func TestParseErrors(t *testing.T) {
	const mods = "modules: {network: github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9}\n"
	cases := map[string]struct{ yaml, want string }{
		"no kinds":                  {mods + "kinds: []", "no kinds"},
		"withParent no because":     {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, withParent: {}}]", "withParent without because"},
		"moreClients no because":    {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, moreClients: {clients: [BClient]}}]", "moreClients"},
		"moreClients none":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, moreClients: {because: z}}]", "moreClients"},
		"moreClients itself":        {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, moreClients: {clients: [AClient], because: z}}]", "other than client"},
		"moreClients bad name":      {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, moreClients: {clients: [b], because: z}}]", "moreClients"},
		"unknown module":            {mods + "kinds: [{kind: VirtualNetwork, group: network, module: nope, client: VirtualNetworksClient}]", "module"},
		"bad kind name":             {mods + "kinds: [{kind: virtualNetwork, group: network, module: network, client: VirtualNetworksClient}]", "kind name"},
		"bad group":                 {mods + "kinds: [{kind: VirtualNetwork, group: network.azure.com, module: network, client: VirtualNetworksClient}]", "group"},
		"bad group, aztenant's":     {mods + "kinds: [{kind: VirtualNetwork, group: network.aztenant.io, module: network, client: VirtualNetworksClient}]", "group"},
		"bad group, uppercase":      {mods + "kinds: [{kind: VirtualNetwork, group: network.FrontDoor, module: network, client: VirtualNetworksClient}]", "group"},
		"bad client":                {mods + "kinds: [{kind: VirtualNetwork, group: network, module: network, client: VirtualNetworks}]", "client"},
		"unknown key":               {mods + "kinds: [{kind: VirtualNetwork, group: network, module: network, client: VirtualNetworksClient, colour: red}]", "colour"},
		"twice":                     {mods + "kinds: [{kind: A, group: network, module: network, client: AClient}, {kind: A, group: network, module: network, client: BClient}]", "twice"},
		"no because":                {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true}}}]", "because"},
		"skip and rename":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, rename: y, because: z}}}]", "skip"},
		"names unknown":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {names: account, because: z}}}]", "names"},
		"names and skip":            {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, names: subscription, because: z}}}]", "skip"},
		"lone subscription":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {subscription: y, because: z}}}]", "subscription"},
		"not the SDK":               {"modules: {x: example.com/x}\nkinds: [{kind: A, group: network, module: x, client: AClient}]", "resourcemanager"},
		"answered nothing":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {answered: {}, because: z}}}]", "without a fact"},
		"normalize unknown":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {answered: {normalize: upper}, because: z}}}]", "upper"},
		"answered and skip":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, answered: {notReturned: true}, because: z}}}]", "skip"},
		"forced object":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {answered: {forced: {a: 1}}, because: z}}}]", "forced"},
		"open set, values":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {answered: {openSet: true, openValues: [a]}, because: z}}}]", "openSet"},
		"marker prefixed":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {markers: ['+kubebuilder:validation:MaxLength=3'], because: z}}}]", "prefix"},
		"markers and skip":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, markers: [MaxLength=3], because: z}}}]", "skip"},
		"name no because":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {maxLength: 63}}]", "because"},
		"name lengths":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {minLength: 9, maxLength: 3, because: z}}]", "lengths"},
		"name doc":                  {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {maxLength: 3, doc: The name., because: z}}]", "AzureName"},
		"name pattern":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {maxLength: 3, pattern: '[', because: z}}]", "pattern"},
		"spec no markers":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, spec: {because: z}}]", "markers"},
		"spec bad marker":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, spec: {markers: ['rule=x'], because: z}}]", "marker"},
		"object no because":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, object: {markers: [MaxLength=3]}}]", "because"},
		"object bad marker":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, object: {markers: ['rule=x'], because: z}}]", "marker"},
		"doc and skip":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, doc: d, because: z}}}]", "skip"},
		"default and skip":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, optional: true, default: a, because: z}}}]", "skip"},
		"required and skip":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, required: true, because: z}}}]", "skip"},
		"required, optional":        {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {required: true, optional: true, because: z}}}]", "required and optional"},
		"location message":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, locationMessage: 'say \"x\"'}]", "quote"},
		"exports no because":        {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {configMaps: {doc: d, keys: [{name: a, status: a, doc: d}]}}}]", "because"},
		"exports no keys":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {configMaps: {doc: d}, because: z}}]", "keys"},
		"export name":               {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {configMaps: {doc: d, keys: [{name: A-b, status: a, doc: d}]}, because: z}}]", "JSON names"},
		"export twice":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {configMaps: {doc: d, keys: [{name: a, status: a, doc: d}, {name: a, status: b, doc: d}]}, because: z}}]", "twice"},
		"exports empty":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {because: z}}]", "configMaps or secrets"},
		"secret no doc":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {keys: [{name: a, doc: d}]}, because: z}}]", "exports.secrets: doc and keys"},
		"secret from status":        {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {doc: d, keys: [{name: a, status: a, doc: d}]}, because: z}}]", "overlay"},
		"secret name":               {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {doc: d, keys: [{name: key-1, doc: d}]}, because: z}}]", "JSON names"},
		"secret twice":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {doc: d, keys: [{name: a, doc: d}, {name: a, doc: e}]}, because: z}}]", "exports.secrets: a twice"},
		"secret key no doc":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {doc: d, keys: [{name: a}]}, because: z}}]", "without doc"},
		"goName and skip":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, goName: X, because: z}}}]", "skip"},
		"stringMap and skip":        {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, stringMap: true, because: z}}}]", "skip"},
		"goType unexported":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {goType: sku, because: z}}}]", "exported Go name"},
		"listMapKey name":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {listMapKey: Value, because: z}}}]", "listMapKey"},
		"status path":               {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {configMaps: {doc: d, keys: [{name: a, status: 'a..b', doc: d}]}, because: z}}]", "JSON names"},
		"export goName":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, exports: {secrets: {doc: d, keys: [{name: sslPort, goName: sslPort, doc: d}]}, because: z}}]", "goName"},
		"owner message":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, ownerMessage: 'say \"x\"'}]", "quote"},
		"status and skip":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {location: {skip: true, status: true, because: z}}}]", "skip"},
		"status nested":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x.y: {status: true, because: z}}}]", "status"},
		"answered unknown":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {answered: {ignore: true}, because: z}}}]", "ignore"},
		"listType map":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {listType: map, because: z}}}]", "listType is set"},
		"listType and key":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {listType: set, listMapKey: name, because: z}}}]", "listType is set"},
		"listType and skip":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, listType: set, because: z}}}]", "skip"},
		"identityReference unknown": {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {identity.userAssignedIdentities: {identityReference: byName, because: z}}}]", "nameOrArmId"},
		"identityReference field":   {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {identityReference: nameOrArmId, because: z}}}]", "on userAssignedIdentities"},
		"status no because":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, path: properties.a.code, doc: d}]}}]", "fields and because"},
		"status no fields":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {because: z}}]", "fields and because"},
		"status flat path":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, path: properties.a, doc: d}], because: z}}]", "nested dotted"},
		"status bad path":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, path: 'a..b', doc: d}], because: z}}]", "nested dotted"},
		"status name":               {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: A-b, path: a.b, doc: d}], because: z}}]", "JSON name"},
		"status goName":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, goName: a, path: a.b, doc: d}], because: z}}]", "goName"},
		"status no doc":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, path: a.b}], because: z}}]", "without doc"},
		"status twice":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, status: {fields: [{name: a, path: a.b, doc: d}, {name: a, path: a.c, doc: d}], because: z}}]", "a twice"},
		"uuid min length":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {uuid: true, minLength: 1, maxLength: 36, pattern: x, because: z}}]", "uuid"},
		"uuid no pattern":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {uuid: true, maxLength: 36, because: z}}]", "uuid"},
		"uuid metadataName":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, name: {uuid: true, maxLength: 36, pattern: x, metadataName: true, because: z}}]", "uuid"},
		"extension empty":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, extension: {because: z}}]", "owners"},
		"extension because":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, extension: {owners: [network/A]}}]", "because"},
		"extension owner":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, extension: {owners: [A], because: z}}]", "group/Kind"},
		"extension unknown":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, extension: {owners: [network/B], because: z}}]", "not a kind of this file"},
		"extension twice":           {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, extension: {owners: [network/A, network/A], because: z}}]", "twice"},
		"fromConfig, skip":          {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {skip: true, fromConfig: {}, because: z}}}]", "skip"},
		"fromConfig marker":         {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {fromConfig: {markers: ['rule=x']}, because: z}}}]", "fromConfig"},
		"refType alone":             {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {referenceType: X, because: z}}}]", "reference: true"},
		"refType name":              {mods + "kinds: [{kind: A, group: network, module: network, client: AClient, fields: {properties.x: {reference: true, referenceType: x, because: z}}}]", "exported Go name"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := config.Parse("test.yaml", []byte(c.yaml))
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want a config.Error mentioning %q", err, c.want)
			}
		})
	}
}

// TestRealConfig: the repository's file parses, every group maps to <group>.aztenant.io,
// and the kinds marked existing are the ones api/crds has today, with the same kind
// name in the same group (so moving them onto the generator keeps their API).
func TestRealConfig(t *testing.T) {
	f, err := config.Load(realConfig)
	if err != nil {
		t.Fatal(err)
	}
	existing := 0
	for _, k := range f.Kinds {
		if g := f.Group(k.Group); g != k.Group+".aztenant.io" {
			t.Errorf("%s: group %s", k.Key(), g)
		}
		if !k.Existing {
			continue
		}
		existing++
		crds, _ := filepath.Glob(filepath.Join("../../../api/crds", f.Group(k.Group)+"_*.yaml"))
		found := false
		for _, c := range crds {
			data, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			found = found || strings.Contains(string(data), "\n    kind: "+k.Kind+"\n")
		}
		if !found {
			t.Errorf("%s is marked existing but no CRD in api/crds has kind %s in group %s", k.Key(), k.Kind, f.Group(k.Group))
		}
	}
	if existing != 0 {
		t.Errorf("%d kinds marked existing, want none: aztenant writes none by hand now", existing)
	}
}
