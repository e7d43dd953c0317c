package emulator_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aztenant/aztenant/emulator"
)

func TestClientAssertionExchange(t *testing.T) {
	f := newFixture(t)
	signer := testKeys()
	aud := []string{tokenExchangeAudience}
	tests := []struct {
		name     string
		clientID string
		token    func() string
		wantErr  []string // substrings of the error; nil means success
		// notErr must not be in the error: what another credential expects
		// is never disclosed to whoever presents an assertion.
		notErr []string
	}{
		{name: "ES256 assertion of the federated subject", clientID: appClientID,
			token: func() string { return signES256(signer.ec, "ec-1", workloadClaims()) }},
		{name: "RS256 assertion of the federated subject", clientID: appClientID,
			token: func() string { return signRS256Test(signer.rsa, "rsa-1", workloadClaims()) }},
		{name: "trusted issuer the credential does not name", clientID: appClientID,
			token: func() string {
				return signES256(signer.ec, "ec-1", assertion(otherIssuer, workloadSubject, aud, time.Hour))
			},
			wantErr: []string{"AADSTS70021", "Assertion Issuer: '" + otherIssuer + "'"}, notErr: []string{testIssuer, "k8s"}},
		{name: "another namespace's service account", clientID: appClientID,
			token: func() string {
				return signES256(signer.ec, "ec-1", assertion(testIssuer, "system:serviceaccount:team-b:azure", aud, time.Hour))
			},
			wantErr: []string{"AADSTS70021", "Assertion Subject: 'system:serviceaccount:team-b:azure'"}, notErr: []string{workloadSubject}},
		{name: "subject differs only in case", clientID: appClientID,
			token: func() string {
				return signES256(signer.ec, "ec-1", assertion(testIssuer, "system:serviceaccount:Team-A:azure", aud, time.Hour))
			},
			wantErr: []string{"AADSTS70021", "Assertion Subject: 'system:serviceaccount:Team-A:azure'"}, notErr: []string{workloadSubject}},
		{name: "wrong audience", clientID: appClientID,
			token: func() string {
				return signES256(signer.ec, "ec-1", assertion(testIssuer, workloadSubject, []string{"https://kubernetes.default.svc"}, time.Hour))
			},
			wantErr: []string{"AADSTS70021", "Assertion Audience: 'https://kubernetes.default.svc'"}, notErr: []string{aud[0]}},
		{name: "unknown client", clientID: "99999999-9999-4999-8999-999999999999",
			token:   func() string { return signES256(signer.ec, "ec-1", workloadClaims()) },
			wantErr: []string{"AADSTS700016", "99999999-9999-4999-8999-999999999999", tenantID}},
		{name: "expired assertion", clientID: appClientID,
			token: func() string {
				c := assertion(testIssuer, workloadSubject, aud, time.Hour)
				c["exp"], c["nbf"] = time.Now().Add(-10*time.Minute).Unix(), time.Now().Add(-70*time.Minute).Unix()
				return signES256(signer.ec, "ec-1", c)
			},
			wantErr: []string{"AADSTS700024", "not within its valid time range"}},
		{name: "signed by a key the issuer does not publish", clientID: appClientID,
			token:   func() string { return signES256(strangerKey(), "ec-1", workloadClaims()) },
			wantErr: []string{"AADSTS50027", "does not verify"}},
		{name: "issuer nobody trusts", clientID: appClientID,
			token: func() string {
				return signES256(signer.ec, "ec-1", assertion("https://evil.example", workloadSubject, aud, time.Hour))
			},
			wantErr: []string{"AADSTS700211", "https://evil.example"}},
		{name: "not a JWT", clientID: appClientID,
			token:   func() string { return "not-a-jwt" },
			wantErr: []string{"AADSTS50027", "malformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cred, err := azidentity.NewClientAssertionCredential(tenantID, tt.clientID,
				func(context.Context) (string, error) { return tt.token(), nil },
				&azidentity.ClientAssertionCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
			if err != nil {
				t.Fatal(err)
			}
			err = getToken(ctxT(t), cred)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("GetToken: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("GetToken succeeded, want a refusal")
			}
			mustContain(t, err.Error(), tt.wantErr...)
			for _, n := range tt.notErr {
				if strings.Contains(err.Error(), n) {
					t.Errorf("the refusal discloses %q: %v", n, err)
				}
			}
		})
	}
	// The audit log names client and subject of every exchange but never holds the token.
	entries := f.emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: appClientID})
	if len(entries) == 0 {
		t.Fatal("no entra audit entries")
	}
	var sawSubject, sawFailure bool
	for _, e := range entries {
		sawSubject = sawSubject || e.Subject == "system:serviceaccount:team-b:azure"
		sawFailure = sawFailure || e.ErrorCode == "AADSTS70021"
	}
	if !sawSubject || !sawFailure {
		t.Errorf("audit lacks the refused team-b exchange: %+v", entries)
	}
}

func TestIssuedTokenNamesThePrincipal(t *testing.T) {
	f := newFixture(t)
	cred := f.workloadCred(t, appClientID, workloadClaims)
	tok, err := cred.GetToken(ctxT(t), tokenRequest())
	if err != nil {
		t.Fatal(err)
	}
	if time.Until(tok.ExpiresOn) < 50*time.Minute {
		t.Errorf("token expires in %s, want about an hour", time.Until(tok.ExpiresOn))
	}
	parsed, err := jwt.ParseSigned(tok.Token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatalf("access token: %v", err)
	}
	// Verify with the key set the emulator publishes, as a resource server would.
	var claims map[string]any
	if err := parsed.Claims(publishedKeys(t, f), &claims); err != nil {
		t.Fatalf("signature: %v", err)
	}
	oid, err := f.emu.PrincipalID(appClientID)
	if err != nil {
		t.Fatal(err)
	}
	if e := f.emu.Audit(emulator.AuditFilter{Service: "entra", ClientID: appClientID})[0]; e.PrincipalID != oid {
		t.Errorf("audit names principal %s, want %s", e.PrincipalID, oid)
	}
	for claim, want := range map[string]string{
		"appid": appClientID, "tid": tenantID, "aud": "https://management.core.windows.net/", "oid": oid,
		"iss": f.emu.URL() + "/" + tenantID + "/v2.0",
	} {
		if got, _ := claims[claim].(string); got != want || want == "" {
			t.Errorf("claim %s = %q, want %q", claim, got, want)
		}
	}
}

func publishedKeys(t *testing.T, f *fixture) *jose.JSONWebKeySet {
	t.Helper()
	resp, err := f.emu.HTTPClient().Get(f.emu.URL() + "/" + tenantID + "/discovery/v2.0/keys")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	return &set
}

func TestClientSecret(t *testing.T) {
	f := newFixture(t)
	if err := getToken(ctxT(t), f.platformCred(t)); err != nil {
		t.Fatalf("platform principal: %v", err)
	}
	bad, err := azidentity.NewClientSecretCredential(tenantID, platformClientID, "wrong",
		&azidentity.ClientSecretCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	err = getToken(ctxT(t), bad)
	if err == nil {
		t.Fatal("wrong secret accepted")
	}
	mustContain(t, err.Error(), "AADSTS7000215", "Invalid client secret")
	if c := f.emu.Counters(); c.TokensIssued != 1 || c.TokenFailures != 1 {
		t.Errorf("counters: issued %d failed %d, want 1 and 1", c.TokensIssued, c.TokenFailures)
	}
}

func TestUnknownTenantIsRefused(t *testing.T) {
	f := newFixture(t)
	cred, err := azidentity.NewClientSecretCredential("0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f", platformClientID, platformSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: f.emu.ClientOptions(), DisableInstanceDiscovery: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := getToken(ctxT(t), cred); err == nil {
		t.Fatal("token issued for an unknown tenant")
	}
}
