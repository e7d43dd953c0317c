package emulator

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Every api-version a released module of the Azure SDK for Go sent for a generated
// type (hack/kindgen/apiversions.json, read by `kindgen history`) is accepted for it,
// as ARM accepts the versions its providers served; a type a hand-written list covers
// (registeredTypes, read from ARM's own refusals and the specs' folders) keeps that list.
func TestGeneratedTypesAcceptTheSDKsReleasedVersions(t *testing.T) {
	data, err := os.ReadFile("../hack/kindgen/apiversions.json")
	if err != nil {
		t.Fatal(err)
	}
	var released map[string]map[string]string
	if err := json.Unmarshal(data, &released); err != nil {
		t.Fatal(err)
	}
	curated := map[string]bool{}
	for _, rt := range registeredTypes {
		curated[strings.ToLower(rt.fullType)] = true
	}
	generated := map[string]bool{}
	for _, gt := range generatedTypes {
		generated[strings.ToLower(gt.fullType)] = true
	}
	checked := 0
	for typ, versions := range released {
		if curated[strings.ToLower(typ)] || !generated[strings.ToLower(typ)] {
			continue
		}
		for v, from := range versions {
			if e := checkAPIVersion(typ, v); e != nil {
				t.Errorf("%s at %s (sent by %s) refused: %s", typ, v, from, e.Message)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d versions of generated types checked", checked)
	}
	// A version no release sent is still refused, naming the ones that are served.
	e := checkAPIVersion("Microsoft.Network/networkSecurityGroups", "2019-06-01")
	if e == nil || e.Code != "NoRegisteredProviderFound" || !strings.Contains(e.Message, "2022-05-01") {
		t.Errorf("an unreleased version: %+v", e)
	}
}
