package emulator_test

import (
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// During an Entra outage every token request fails with 503 and is audited as
// the fault; ARM keeps accepting tokens issued before; when the outage ends
// the same credential gets a token again.
func TestEntraUnavailable(t *testing.T) {
	f := newFixture(t)
	platform := f.platformCred(t)
	groups, err := armresources.NewResourceGroupsClient(subscriptionID, platform, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	f.createGroup(t, platform, "before-outage") // caches the platform's token

	// A workload that has talked to Entra before (discovery cached) needs a
	// token for another audience during the outage.
	workload := f.workloadCred(t, appClientID, workloadClaims)
	if err := getToken(ctxT(t), workload); err != nil {
		t.Fatal(err)
	}
	otherScope := policy.TokenRequestOptions{Scopes: []string{"https://management.azure.com/.default"}}
	f.emu.SetFaults(emulator.Faults{EntraUnavailable: true})
	since := lastSeq(f)
	_, err = workload.GetToken(ctxT(t), otherScope)
	var af *azidentity.AuthenticationFailedError
	if !errors.As(err, &af) || af.RawResponse == nil || af.RawResponse.StatusCode != 503 {
		t.Fatalf("token request during the outage: %v, want a 503", err)
	}
	mustContain(t, err.Error(), "temporarily_unavailable", "AADSTS90033")
	entries := f.emu.Audit(emulator.AuditFilter{Since: since, Service: "entra"})
	if len(entries) == 0 {
		t.Fatal("no audited token request")
	}
	for _, e := range entries {
		if e.Status != 503 || e.Fault != "entra-unavailable" || e.ClientID != appClientID {
			t.Errorf("audit entry %+v", e)
		}
	}
	if _, err := groups.Get(ctxT(t), "before-outage", nil); err != nil {
		t.Errorf("ARM refused a token issued before the outage: %v", err)
	}

	f.emu.SetFaults(emulator.Faults{})
	if _, err := workload.GetToken(ctxT(t), otherScope); err != nil {
		t.Errorf("token request after the outage: %v", err)
	}
	// A client that never reached Entra fails at discovery during an outage too.
	f.emu.SetFaults(emulator.Faults{EntraUnavailable: true})
	if err := getToken(ctxT(t), f.workloadCred(t, appClientID, workloadClaims)); err == nil {
		t.Error("a new client got a token during the outage")
	}
}

// A clock skew makes Entra see assertions as older: one with 10 minutes left
// is refused as expired (AADSTS700024) under an 11-minute skew (leeway 1
// minute) and accepted again when the skew is gone.
func TestEntraClockSkewExpiresAssertionsEarly(t *testing.T) {
	f := newFixture(t)
	tenMinutes := func() map[string]any {
		return assertion(testIssuer, workloadSubject, []string{tokenExchangeAudience}, 10*time.Minute)
	}
	f.emu.SetFaults(emulator.Faults{EntraClockSkew: emulator.Duration(11*time.Minute + 5*time.Second)})
	err := getToken(ctxT(t), f.workloadCred(t, appClientID, tenMinutes))
	if err == nil {
		t.Fatal("an assertion past its expiry on Entra's clock was accepted")
	}
	mustContain(t, err.Error(), "AADSTS700024")
	f.emu.SetFaults(emulator.Faults{EntraClockSkew: emulator.Duration(9 * time.Minute)})
	if err := getToken(ctxT(t), f.workloadCred(t, appClientID, tenMinutes)); err != nil {
		t.Errorf("an assertion still valid on Entra's clock: %v", err)
	}
}
