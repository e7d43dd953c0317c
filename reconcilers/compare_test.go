package reconcilers

import (
	"encoding/json"
	"testing"
)

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
