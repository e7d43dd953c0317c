package reconcilers

import (
	"encoding/json"
	"strings"
	"testing"
)

// A kind may accept a more precise observed value than the one requested.
func TestDriftWithEquivalence(t *testing.T) {
	desired := map[string]any{"properties": map[string]any{"redisVersion": "6"}}
	redis := func(path, w, g string) bool { return path == "properties.redisVersion" && strings.HasPrefix(g, w+".") }
	for observed, want := range map[string]string{"6.0.20": "", "6": "", "7.2.4": "properties.redisVersion", "60.1": "properties.redisVersion"} {
		actual := map[string]any{"properties": map[string]any{"redisVersion": observed}}
		if got := driftWith(desired, actual, nil, redis); got != want {
			t.Errorf("observed %q: drift %q, want %q", observed, got, want)
		}
	}
	if got := drift(desired, map[string]any{"properties": map[string]any{"redisVersion": "6.0.20"}}, nil); got == "" {
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
		{"node count changed out of band", `{"properties":{"agentPoolProfiles":[{"name":"sys","count":1}]}}`, `{"properties":{"agentPoolProfiles":[{"name":"sys","count":5,"vmSize":"x"}]}}`, nil, "properties.agentPoolProfiles[0].count"},
		{"tag removed in portal", `{"tags":{"team":"a"}}`, `{"tags":{}}`, nil, "tags.team"},
		{"list length differs", `{"properties":{"ipRules":[{"value":"1.2.3.4"}]}}`, `{"properties":{"ipRules":[]}}`, nil, "properties.ipRules"},
		{"type differs", `{"properties":{"count":1}}`, `{"properties":{"count":"1"}}`, nil, "properties.count"},
		{"write-only ignored", `{"properties":{"administratorLoginPassword":"s3cret","version":"16"}}`, `{"properties":{"version":"16"}}`, []string{"properties.administratorLoginPassword"}, ""},
		{"missing object", `{"properties":{"networkAcls":{"defaultAction":"Deny"}}}`, `{"properties":{}}`, nil, "properties.networkAcls"},
		{"empty tags omitted by ARM", `{"location":"westeurope","tags":{}}`, `{"location":"westeurope"}`, nil, ""},
		{"tag added in portal", `{"tags":{"team":"a"}}`, `{"tags":{"team":"a","owner":"eve"}}`, nil, "tags.owner"},
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
			if got := drift(d, a, tc.ignore); got != tc.want {
				t.Errorf("drift = %q, want %q", got, tc.want)
			}
		})
	}
}
