package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// TestModelCommand: `kindgen model -kind X` prints the kind's model as JSON.
func TestModelCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"model", "-kind", "RedisFirewallRule"}, &out); err != nil {
		t.Fatal(err)
	}
	var k model.Kind
	if err := json.Unmarshal(out.Bytes(), &k); err != nil {
		t.Fatal(err)
	}
	if k.ARMType != "Microsoft.Cache/redis/firewallRules" || k.Group.Aztenant != "cache.aztenant.io" {
		t.Errorf("model = %s %s", k.ARMType, k.Group.Aztenant)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"model"}, {"model", "-kind", "Namespace"}, {"model", "-kind", "Nope"}, {"frobnicate"}} {
		err := run(context.Background(), args, &bytes.Buffer{})
		var u *usageError
		if !errors.As(err, &u) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}
