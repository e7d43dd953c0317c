package kinds

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	containerservicev1alpha1 "github.com/aztenant/aztenant/api/containerservice/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// sentinel is planted everywhere outside the spec (metadata, status): a PUT
// body built from the spec never contains it.
const sentinel = "zzoutsidespeczz"

// fuzzResolved stands for what Resolve reads from the namespace (a password
// Secret, a principal ID from a ConfigMap, an identity's ARM ID).
var fuzzResolved = map[string]string{
	fromConfigKey("properties.principalId"): "11111111-2222-3333-4444-555555555555",
	resolvedSubscription:                    "00000000-0000-0000-0000-0000000000bb",
	secretKey("administratorLoginPassword"): "resolved-Password-1!",
}

// armEnvelope is every top-level key an ARM PUT body may have.
var armEnvelope = map[string]bool{"location": true, "tags": true, "sku": true, "kind": true, "properties": true, "identity": true, "zones": true}

// FuzzDesired decodes arbitrary JSON as the spec of each registered kind and
// builds its ARM PUT body. It must not panic, must return a body that is
// valid JSON with only ARM's top-level keys, build the same body twice, and
// carry only values from the spec or resolved references: nothing from
// metadata or status.
func FuzzDesired(f *testing.F) {
	all := All()
	seeds := map[string]string{
		"ResourceGroup":                              `{"location":"westeurope","tags":{"team":"a"}}`,
		"StorageAccount":                             `{"owner":{"name":"rg"},"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"minimumTlsVersion":"TLS1_2","allowBlobPublicAccess":false,"networkAcls":{"defaultAction":"Deny","ipRules":[{"value":"203.0.113.0/24"}]}}`,
		"StorageAccountsBlobServicesContainer":       `{"owner":{"name":"sa"},"publicAccess":"None","metadata":{"k":"v"}}`,
		"Redis":                                      `{"owner":{"name":"rg"},"location":"westeurope","sku":{"name":"Premium","family":"P","capacity":1},"shardCount":2,"redisConfiguration":{"maxmemory-policy":"allkeys-lru"}}`,
		"DbforpostgresqlFlexibleServer":              `{"owner":{"name":"rg"},"location":"westeurope","version":"16","sku":{"name":"Standard_B1ms","tier":"Burstable"},"administratorLogin":"admin","administratorLoginPassword":{"name":"s","key":"p"},"storage":{"storageSizeGB":32}}`,
		"DbforpostgresqlFlexibleServersDatabase":     `{"owner":{"name":"pg"},"charset":"UTF8","collation":"en_US.utf8"}`,
		"DbforpostgresqlFlexibleServersFirewallRule": `{"owner":{"name":"pg"},"startIpAddress":"10.0.0.1","endIpAddress":"10.0.0.9"}`,
		"ManagedCluster":                             `{"owner":{"name":"rg"},"location":"westeurope","dnsPrefix":"x","identity":{"type":"UserAssigned","userAssignedIdentities":[{"reference":{"name":"id"}}]},"agentPoolProfiles":[{"name":"system","count":1,"vmSize":"Standard_D2s_v5","mode":"System"}]}`,
		"UserAssignedIdentity":                       `{"owner":{"name":"rg"},"location":"westeurope","tags":{"a":"b"}}`,
		"FederatedIdentityCredential":                `{"owner":{"name":"id"},"issuer":"https://issuer.example","subject":"system:serviceaccount:ns:sa","audiences":["api://AzureADTokenExchange"]}`,
		"RoleAssignment":                             `{"owner":{"name":"rg"},"roleDefinitionReference":{"wellKnownName":"Reader"},"principalId":"11111111-2222-3333-4444-555555555555","description":"d"}`,
	}
	for i, k := range all {
		f.Add(uint8(i), []byte(`{}`))
		if s, ok := seeds[reflect.TypeOf(k).Name()]; ok {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, spec []byte) {
		if bytes.Contains(bytes.ToLower(spec), []byte(sentinel)) {
			return
		}
		k := all[int(which)%len(all)]
		obj := k.New()
		if err := json.Unmarshal(append(append([]byte(`{"spec":`), spec...), '}'), obj); err != nil {
			return // not a spec of this kind: the API server would refuse it
		}
		obj.SetName(sentinel)
		obj.SetNamespace(sentinel)
		obj.SetAnnotations(map[string]string{sentinel: sentinel})
		obj.SetLabels(map[string]string{sentinel: sentinel})
		st := obj.AzureStatus()
		st.ID, st.ProvisioningState, st.ResumeToken = "/subscriptions/"+sentinel, sentinel, sentinel

		resolved := withIdentities(obj, fuzzResolved)
		body, err := k.Desired(obj, resolved)
		if err != nil {
			return // refused with an error (InvalidSpec): fine
		}
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("%T: body is not JSON: %v", k, err)
		}
		if !json.Valid(raw) {
			t.Fatalf("%T: invalid JSON %s", k, raw)
		}
		for key := range body {
			if !armEnvelope[key] {
				t.Fatalf("%T: top-level key %q is not part of an ARM body: %s", k, key, raw)
			}
		}
		again, _ := k.Desired(obj, resolved)
		if raw2, _ := json.Marshal(again); !bytes.Equal(raw, raw2) {
			t.Fatalf("%T: two builds differ:\n%s\n%s", k, raw, raw2)
		}
		if bytes.Contains(bytes.ToLower(raw), []byte(sentinel)) {
			t.Fatalf("%T: the body carries a value from outside the spec: %s", k, raw)
		}
		from := stringsOf(json.RawMessage(spec), resolved)
		var decoded any
		_ = json.Unmarshal(raw, &decoded)
		walkStrings(decoded, func(s string) {
			if !from.explains(s) {
				t.Fatalf("%T: body value %q comes neither from the spec nor from a resolved reference: %s", k, s, raw)
			}
		})
	})
}

// withIdentities adds the ARM IDs a ManagedCluster's identity references
// resolve to.
func withIdentities(obj azurev1alpha1.Resource, base map[string]string) map[string]string {
	out := maps.Clone(base)
	if mc, ok := obj.(*containerservicev1alpha1.ManagedCluster); ok && mc.Spec.Identity != nil {
		for _, u := range mc.Spec.Identity.UserAssignedIdentities {
			if n := u.Reference.Name; n != "" {
				out["identity/"+n] = "/subscriptions/00000000-0000-0000-0000-0000000000bb/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + n
			}
		}
	}
	return out
}

// origins are the strings a body may be built from.
type origins map[string]bool

func stringsOf(spec json.RawMessage, resolved map[string]string) origins {
	o := origins{}
	var v any
	_ = json.Unmarshal(spec, &v)
	// A location goes to ARM by its name (display names normalised).
	walkStrings(v, func(s string) { o[s], o[azurev1alpha1.NormalizeLocation(s)] = true, true })
	for _, s := range resolved {
		o[s] = true
	}
	// Documented defaults a kind fills in when the spec leaves them out.
	o[identity.TokenAudience] = true
	return o
}

// explains reports whether s is a value of the spec or a resolved one, or is
// built around one (a role definition ID around the resolved subscription).
func (o origins) explains(s string) bool {
	if s == "" || o[s] {
		return true
	}
	for v := range o {
		if len(v) >= 8 && strings.Contains(s, v) {
			return true
		}
	}
	return false
}

func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	}
}
