package comparison

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A kind may accept a more precise observed value than the one requested.
func TestDriftWithEquivalence(t *testing.T) {
	desired := map[string]any{"properties": map[string]any{"redisVersion": "6"}}
	redis := func(path, w, g string) bool { return path == "properties.redisVersion" && strings.HasPrefix(g, w+".") }
	for observed, want := range map[string]string{"6.0.20": "", "6": "", "7.2.4": "properties.redisVersion", "60.1": "properties.redisVersion"} {
		actual := map[string]any{"properties": map[string]any{"redisVersion": observed}}
		if got := Drift(desired, actual, Rules{Equivalent: redis}); got != want {
			t.Errorf("observed %q: drift %q, want %q", observed, got, want)
		}
	}
	if got := Drift(desired, map[string]any{"properties": map[string]any{"redisVersion": "6.0.20"}}, Rules{}); got == "" {
		t.Error("without the kind's equivalence, 6.0.20 must differ from 6")
	}
}

func TestDrift(t *testing.T) {
	cases := []struct {
		name            string
		desired, actual string
		ignore          []string
		want            string
	}{
		{"equal", `{"location":"westeurope","tags":{"a":"1"}}`, `{"location":"westeurope","tags":{"a":"1"}}`, nil, ""},
		{"ARM adds defaults and outputs", `{"properties":{"sku":"Standard"}}`, `{"id":"/x","properties":{"sku":"Standard","provisioningState":"Succeeded","primaryEndpoints":{"blob":"https://"}}}`, nil, ""},
		{"location display name", `{"location":"West Europe"}`, `{"location":"westeurope"}`, nil, ""},
		{"enum casing", `{"properties":{"publicNetworkAccess":"disabled"}}`, `{"properties":{"publicNetworkAccess":"Disabled"}}`, nil, ""},
		{"property name casing", `{"properties":{"accessTier":"Hot"}}`, `{"properties":{"AccessTier":"Hot"}}`, nil, ""},
		{"node count changed out of band", `{"properties":{"agentPoolProfiles":[{"name":"sys","count":1}]}}`, `{"properties":{"agentPoolProfiles":[{"name":"sys","count":5,"vmSize":"x"}]}}`, nil, "properties.agentPoolProfiles[name=sys].count"},
		{"tag removed in portal", `{"tags":{"team":"a"}}`, `{"tags":{}}`, nil, "tags.team"},
		{"list length differs", `{"properties":{"ipRules":[{"value":"1.2.3.4"}]}}`, `{"properties":{"ipRules":[]}}`, nil, "properties.ipRules"},
		{"type differs", `{"properties":{"count":1}}`, `{"properties":{"count":"1"}}`, nil, "properties.count"},
		{"write-only ignored", `{"properties":{"administratorLoginPassword":"s3cret","version":"16"}}`, `{"properties":{"version":"16"}}`, []string{"properties.administratorLoginPassword"}, ""},
		{"missing object", `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`, `{"properties":{}}`, nil, "properties.networkAcls"},
		{"empty tags omitted by ARM", `{"location":"westeurope","tags":{}}`, `{"location":"westeurope"}`, nil, ""},
		{"tag added in portal is not the spec's", `{"tags":{"team":"a"}}`, `{"tags":{"team":"a","owner":"eve"}}`, nil, ""},
		{"tag value changed in portal", `{"tags":{"team":"a"}}`, `{"tags":{"team":"eve","owner":"eve"}}`, nil, "tags.team"},
		{"bool flipped", `{"properties":{"enableNonSslPort":false}}`, `{"properties":{"enableNonSslPort":true}}`, nil, "properties.enableNonSslPort"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d, a map[string]any
			if err := json.Unmarshal([]byte(tc.desired), &d); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.actual), &a); err != nil {
				t.Fatal(err)
			}
			if got := Drift(d, a, Rules{Ignore: tc.ignore}); got != tc.want {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
		})
	}
}

// Lists of named sub-objects (AKS agent pools, subnets, rules) are sets keyed
// by name: Azure may return them in another order than the spec lists them.
func TestDriftNamedLists(t *testing.T) {
	const desired = `{"properties":{"agentPoolProfiles":[{"name":"system","count":1,"mode":"System"},{"name":"user","count":2,"mode":"User"}]}}`
	cases := []struct {
		name, actual, want string
	}{
		{"same order", `{"properties":{"agentPoolProfiles":[{"name":"system","count":1,"mode":"System"},{"name":"user","count":2,"mode":"User"}]}}`, ""},
		{"Azure's order differs", `{"properties":{"agentPoolProfiles":[{"name":"user","count":2,"mode":"User","vmSize":"x"},{"name":"system","count":1,"mode":"System"}]}}`, ""},
		{"name casing", `{"properties":{"agentPoolProfiles":[{"name":"User","count":2,"mode":"User"},{"name":"SYSTEM","count":1,"mode":"System"}]}}`, ""},
		{"count changed on the second pool, order swapped", `{"properties":{"agentPoolProfiles":[{"name":"user","count":5,"mode":"User"},{"name":"system","count":1,"mode":"System"}]}}`, "properties.agentPoolProfiles[name=user].count"},
		{"count changed on the second pool", `{"properties":{"agentPoolProfiles":[{"name":"system","count":1,"mode":"System"},{"name":"user","count":5,"mode":"User"}]}}`, "properties.agentPoolProfiles[name=user].count"},
		{"pool missing", `{"properties":{"agentPoolProfiles":[{"name":"system","count":1,"mode":"System"}]}}`, "properties.agentPoolProfiles"},
		{"pool replaced by another", `{"properties":{"agentPoolProfiles":[{"name":"system","count":1,"mode":"System"},{"name":"batch","count":2,"mode":"User"}]}}`, "properties.agentPoolProfiles[name=user]"},
		{"pool added in the portal", `{"properties":{"agentPoolProfiles":[{"name":"system","count":1},{"name":"user","count":2},{"name":"gpu","count":1}]}}`, "properties.agentPoolProfiles"},
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(desired), &d); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a map[string]any
			if err := json.Unmarshal([]byte(tc.actual), &a); err != nil {
				t.Fatal(err)
			}
			if got := Drift(d, a, Rules{}); got != tc.want {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
		})
	}
}

// An open set (Rules.OpenSets: AKS agent pools, some managed by their own
// kind) compares the elements the spec names; others in Azure are not drift.
func TestDriftOpenSets(t *testing.T) {
	const desired = `{"properties":{"agentPoolProfiles":[{"name":"system","count":1}]}}`
	open := []string{"properties.agentPoolProfiles"}
	for name, tc := range map[string]struct{ actual, want string }{
		"a pool of its own kind":       {`{"properties":{"agentPoolProfiles":[{"name":"system","count":1},{"name":"user","count":3}]}}`, ""},
		"the named pool scaled":        {`{"properties":{"agentPoolProfiles":[{"name":"user","count":3},{"name":"system","count":2}]}}`, "properties.agentPoolProfiles[name=system].count"},
		"the named pool gone":          {`{"properties":{"agentPoolProfiles":[{"name":"user","count":3}]}}`, "properties.agentPoolProfiles[name=system]"},
		"unnamed elements: positional": {`{"properties":{"agentPoolProfiles":[{"count":1},{"count":3}]}}`, "properties.agentPoolProfiles"},
	} {
		t.Run(name, func(t *testing.T) {
			var d, a map[string]any
			if err := json.Unmarshal([]byte(desired), &d); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.actual), &a); err != nil {
				t.Fatal(err)
			}
			if got := Drift(d, a, Rules{OpenSets: open}); got != tc.want {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
		})
	}
}

// Lists without names keep their order: it may mean something (IP ranges,
// positional arguments), and there is no key to pair elements by.
func TestDriftUnnamedListsArePositional(t *testing.T) {
	for name, tc := range map[string]struct{ desired, actual, want string }{
		"strings swapped":                {`{"p":{"ranges":["10.0.0.0/8","192.168.0.0/16"]}}`, `{"p":{"ranges":["192.168.0.0/16","10.0.0.0/8"]}}`, "p.ranges[0]"},
		"objects without names swapped":  {`{"p":{"ipRules":[{"value":"1.1.1.1"},{"value":"2.2.2.2"}]}}`, `{"p":{"ipRules":[{"value":"2.2.2.2"},{"value":"1.1.1.1"}]}}`, "p.ipRules[0].value"},
		"duplicate names are positional": {`{"p":{"l":[{"name":"a","v":1},{"name":"a","v":2}]}}`, `{"p":{"l":[{"name":"a","v":2},{"name":"a","v":1}]}}`, "p.l[0].v"},
	} {
		var d, a map[string]any
		if err := json.Unmarshal([]byte(tc.desired), &d); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tc.actual), &a); err != nil {
			t.Fatal(err)
		}
		if got := Drift(d, a, Rules{}); got != tc.want {
			t.Errorf("%s: drift = %q, want %q", name, got, tc.want)
		}
	}
}

func TestDifferencesListsEveryPath(t *testing.T) {
	desired := map[string]any{
		"location": "West Europe",
		"tags":     map[string]any{"env": "dev", "team": "a"},
		"properties": map[string]any{
			"sku":      map[string]any{"name": "Premium"},
			"password": "s3cret",
			"subnets":  []any{map[string]any{"name": "app", "prefix": "10.0.1.0/24"}, map[string]any{"name": "db", "prefix": "10.0.2.0/24"}},
			"pools":    []any{map[string]any{"name": "system", "count": 1.0}},
		},
	}
	actual := map[string]any{
		"location": "westeurope",
		"tags":     map[string]any{"env": "prod", "owner": "x"},
		"properties": map[string]any{
			"sku":     map[string]any{"name": "Standard", "family": "C"},
			"subnets": []any{map[string]any{"name": "APP", "prefix": "10.0.1.0/24"}, map[string]any{"name": "web", "prefix": "10.0.3.0/24"}},
			"pools":   []any{map[string]any{"name": "system", "count": 1.0}, map[string]any{"name": "user", "count": 3.0}},
		},
	}
	var got []string
	for _, d := range Differences(desired, actual, Rules{Ignore: []string{"properties.password"}, OpenSets: []string{"properties.pools"}}) {
		got = append(got, fmt.Sprintf("%s: %v -> %v", d.Path, d.Actual, d.Desired))
	}
	want := []string{
		"properties.sku.name: Standard -> Premium",
		"properties.subnets[name=db]: <nil> -> map[name:db prefix:10.0.2.0/24]",
		"properties.subnets[name=web]: map[name:web prefix:10.0.3.0/24] -> <nil>",
		"tags.env: prod -> dev",
		"tags.team: <nil> -> a",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("differences =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The first of them is what a write acts on.
	if first := Drift(desired, actual, Rules{Ignore: []string{"properties.password"}, OpenSets: []string{"properties.pools"}}); first == "" {
		t.Error("Drift found no difference")
	}
	if d := Differences(actual, actual, Rules{}); len(d) != 0 {
		t.Errorf("differences of equal bodies: %v", d)
	}
}
