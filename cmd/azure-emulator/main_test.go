package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aztenant/aztenant/emulator"
)

func TestConfigFromFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	jwks := filepath.Join(dir, "jwks.json")
	if err := os.WriteFile(jwks, []byte(`{"keys":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, c emulator.Config)
		fail  bool
	}{
		{name: "config file keeps its address unless --addr is given",
			args: []string{"--config", "../../emulator/testdata/example-config.json"},
			check: func(t *testing.T, c emulator.Config) {
				if c.Addr != "127.0.0.1:8443" || c.AuditSize != 5000 || time.Duration(c.PollRetryAfter) != 50*time.Millisecond {
					t.Errorf("addr %s audit %d poll %s", c.Addr, c.AuditSize, time.Duration(c.PollRetryAfter))
				}
				if len(c.Principals) != 1 || c.Principals[0].Roles[0].Role != "Owner" {
					t.Errorf("principals %+v", c.Principals)
				}
				if c.LRO["Microsoft.Storage/storageAccounts"].Write != emulator.LROLocation || c.Faults.Throttle.Writes != 1200 {
					t.Errorf("lro %+v faults %+v", c.LRO, c.Faults)
				}
				// The example seeds consistently: an emulator accepts it.
				if _, err := emulator.New(c); err != nil {
					t.Errorf("New with the example config: %v", err)
				}
			}},
		{name: "flags seed a platform principal",
			args: []string{"--addr", "127.0.0.1:0", "--tenant-id", "t1", "--subscription-id", "s1", "--platform-client-id", "c1", "--platform-client-secret", "x"},
			check: func(t *testing.T, c emulator.Config) {
				if c.Addr != "127.0.0.1:0" || len(c.Tenants) != 1 || len(c.Subscriptions) != 1 {
					t.Errorf("%+v", c)
				}
				if p := c.Principals[0]; p.ClientSecret != "x" || p.Roles[0].Scope != "/subscriptions/s1" {
					t.Errorf("principal %+v", p)
				}
			}},
		{name: "literal JWKS for the single issuer",
			args: []string{"--trust-issuer", "https://cluster.local", "--trust-jwks", jwks},
			check: func(t *testing.T, c emulator.Config) {
				if len(c.TrustedIssuers) != 1 || c.TrustedIssuers[0].Issuer != "https://cluster.local" || string(c.TrustedIssuers[0].JWKS) != `{"keys":[]}` {
					t.Errorf("issuers %+v", c.TrustedIssuers)
				}
			}},
		{name: "issuer URL with CA", args: []string{"--trust-issuer", "https://a", "--trust-issuer-ca", jwks},
			check: func(t *testing.T, c emulator.Config) {
				if len(c.TrustedIssuers) != 1 || c.TrustedIssuers[0].CAPEM == "" {
					t.Errorf("issuers %+v", c.TrustedIssuers)
				}
			}},
		{name: "answers from Azure's examples by default", args: []string{},
			check: func(t *testing.T, c emulator.Config) {
				if !c.AnswerFromExamples {
					t.Error("the emulator echoes writes by default")
				}
			}},
		{name: "--answers echo", args: []string{"--answers", "echo"},
			check: func(t *testing.T, c emulator.Config) {
				if c.AnswerFromExamples {
					t.Error("--answers echo answers from examples")
				}
			}},
		{name: "--answers of another kind", args: []string{"--answers", "replay"}, fail: true},
		{name: "subscription without tenant", args: []string{"--subscription-id", "s1"}, fail: true},
		{name: "JWKS without issuer", args: []string{"--trust-jwks", jwks}, fail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			c, err := o.config()
			if tt.fail {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
