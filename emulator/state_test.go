package emulator_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"

	"github.com/aztenant/aztenant/emulator"
)

// staticToken replays one access token, like a client holding a cached token across an
// emulator restart.
type staticToken azcore.AccessToken

func (s staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken(s), nil
}

func TestRestartKeepsStateCAAndTokens(t *testing.T) {
	dir := t.TempDir()
	withState := func(c *emulator.Config) {
		c.StateFile = filepath.Join(dir, "state.json")
		c.SigningKeyPEM = "" // the key must come from the state file on restart
		c.CAFile = filepath.Join(dir, "ca.pem")
	}
	first := newFixture(t, withState)
	platform := first.platformCred(t)
	first.createGroup(t, platform, "kept")
	mi := first.createIdentity(t, platform, "kept", "id", workloadSubject)
	tok, err := platform.GetToken(ctxT(t), tokenRequest())
	if err != nil {
		t.Fatal(err)
	}
	caBefore := first.emu.CAPEM()
	if err := first.emu.Close(); err != nil {
		t.Fatal(err)
	}

	second := newFixture(t, withState)
	if string(second.emu.CAPEM()) != string(caBefore) {
		t.Error("CA changed across restart")
	}
	ids, _ := second.identities(t, staticToken(tok))
	got, err := ids.Get(ctxT(t), "kept", "id", nil)
	if err != nil {
		t.Fatalf("identity after restart with a token from before: %v", err)
	}
	if *got.Properties.ClientID != *mi.Properties.ClientID {
		t.Error("client ID changed across restart")
	}
	// The federated credential survived too: the identity still exchanges.
	if err := getToken(ctxT(t), second.workloadCred(t, *mi.Properties.ClientID, workloadClaims)); err != nil {
		t.Errorf("exchange after restart: %v", err)
	}
	if _, err := ids.CreateOrUpdate(ctxT(t), "kept", "id2", armmsi.Identity{Location: to.Ptr("westeurope")}, nil); err != nil {
		t.Errorf("platform's Owner role lost across restart: %v", err)
	}
}

func TestControlAPI(t *testing.T) {
	f := newFixture(t)
	hc := f.emu.HTTPClient()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, f.emu.URL()+"/_emulator"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Seed a second subscription and a principal with Reader on it.
	status, body := call("POST", "/seed", `{
		"subscriptions": [{"id": "4d4d4d4d-4d4d-4d4d-8d4d-4d4d4d4d4d4d", "tenantId": "`+tenantID+`"}],
		"principals": [{"clientId": "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e", "tenantId": "`+tenantID+`", "clientSecret": "x",
			"roles": [{"role": "Reader", "scope": "/subscriptions/4d4d4d4d-4d4d-4d4d-8d4d-4d4d4d4d4d4d"}]}]}`)
	if status != 200 {
		t.Fatalf("seed: %d %s", status, body)
	}
	if status, body := call("POST", "/seed", `{"principals":[{"clientId":"x"}]}`); status != 400 || !strings.Contains(body, "tenantId") {
		t.Errorf("invalid seed: %d %s", status, body)
	}
	if status, _ := call("PUT", "/faults", `{"latency":"1ms","failNext":[{"resourceType":"Microsoft.Test/widgets","count":2}]}`); status != 200 {
		t.Errorf("faults: %d", status)
	}
	_, body = call("GET", "/faults", "")
	var faults emulator.Faults
	if err := json.Unmarshal([]byte(body), &faults); err != nil || len(faults.FailNext) != 1 || faults.FailNext[0].Count != 2 {
		t.Errorf("faults read back: %s", body)
	}
	f.createGroup(t, f.platformCred(t), "cp")
	rg := "/subscriptions/" + subscriptionID + "/resourceGroups/cp"
	if status, body := call("PATCH", "/resources"+rg, `{"tags":{"owner":"portal"}}`); status != 200 || !strings.Contains(body, `"owner":"portal"`) {
		t.Errorf("patch: %d %s", status, body)
	}
	if status, _ := call("GET", "/resources"+rg+"/providers/Microsoft.Test/widgets/none", ""); status != 404 {
		t.Errorf("missing resource: %d", status)
	}
	_, body = call("GET", "/audit?service=arm&method=PUT", "")
	if !strings.Contains(body, `"path":"`+strings.Replace(rg, "resourceGroups", "resourcegroups", 1)+`"`) {
		t.Errorf("audit lacks the resource group PUT: %s", body)
	}
	_, body = call("GET", "/counters", "")
	if !strings.Contains(body, `"tokensIssued":1`) {
		t.Errorf("counters: %s", body)
	}
	if status, _ := call("POST", "/reset", ""); status != 200 {
		t.Fatal("reset failed")
	}
	if status, _ := call("GET", "/resources"+rg, ""); status != 404 {
		t.Error("resource survived reset")
	}
	if c := f.emu.Counters(); c.Requests != 0 {
		t.Errorf("counters after reset: %+v", c)
	}
	// The configured seed is back: the platform principal still works.
	f.createGroup(t, f.platformCred(t), "after-reset")
}
