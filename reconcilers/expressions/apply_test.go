package expressions

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

type dest = azurev1alpha1.DestinationExpression

func TestApply(t *testing.T) {
	e := newEvaluator(t, Options{})
	ops := &azurev1alpha1.OperatorExpressions{
		SecretExpressions: []dest{
			{Name: "storage", Key: "conn", Value: `"DefaultEndpointsProtocol=https;AccountName=" + self.spec.azureName + ";AccountKey=" + secret.key1`},
			{Name: "storage", Value: `{"key2": secret.key2, "account": self.spec.azureName}`},
			{Name: "other", Key: "k", Value: `secret.key1`},
		},
		ConfigMapExpressions: []dest{
			{Name: "endpoints", Key: "blob", Value: `self.status.primaryEndpoints.blob`},
			{Name: "endpoints", Value: `{"queue": self.status.primaryEndpoints.queue}`},
			{Name: "endpoints", Value: `self.spec.tags`},
			// Same name and key as a Secret: a different object, no conflict.
			{Name: "storage", Key: "conn", Value: `self.metadata.name`},
		},
	}
	secrets, configMaps, err := Apply(context.Background(), e, ops, storageAccount(), storageSecrets)
	if err != nil {
		t.Fatal(err)
	}
	wantSecrets := map[string]map[string]string{
		"storage": {
			"conn":    "DefaultEndpointsProtocol=https;AccountName=teamaphotos;AccountKey=a2V5MQ==",
			"key2":    "a2V5Mg==",
			"account": "teamaphotos",
		},
		"other": {"k": "a2V5MQ=="},
	}
	wantConfigMaps := map[string]map[string]string{
		"endpoints": {
			"blob":  "https://teamaphotos.blob.core.windows.net/",
			"queue": "https://teamaphotos.queue.core.windows.net/",
			"env":   "prod",
			"team":  "a",
		},
		"storage": {"conn": "photos"},
	}
	if !maps.EqualFunc(secrets, wantSecrets, maps.Equal) {
		t.Errorf("secrets %v\nwant %v", secrets, wantSecrets)
	}
	if !maps.EqualFunc(configMaps, wantConfigMaps, maps.Equal) {
		t.Errorf("configMaps %v\nwant %v", configMaps, wantConfigMaps)
	}
	// Nothing to do.
	for _, ops := range []*azurev1alpha1.OperatorExpressions{nil, {}} {
		s, c, err := Apply(context.Background(), e, ops, storageAccount(), nil)
		if err != nil || s != nil || c != nil {
			t.Fatalf("%v: got %v %v %v", ops, s, c, err)
		}
	}
}

func TestValidateAllAndApplyErrors(t *testing.T) {
	e := newEvaluator(t, Options{})
	tests := []struct {
		name    string
		ops     azurev1alpha1.OperatorExpressions
		compile bool   // ValidateAll fails too
		want    string // whole Error()
	}{
		{name: "typo with index and key", compile: true,
			ops: azurev1alpha1.OperatorExpressions{SecretExpressions: []dest{
				{Name: "s", Key: "a", Value: `self.metadata.name`},
				{Name: "s", Key: "conn", Value: `"AccountKey=" + secrt.key1`},
			}},
			want: `secretExpressions[1] (key "conn"): ERROR: <input>:1:17: undeclared reference to 'secrt'`},
		{name: "secret in configMap", compile: true,
			ops:  azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{{Name: "c", Key: "k", Value: `secret.key1`}}},
			want: "configMapExpressions[0] (key \"k\"): ERROR: <input>:1:1: configMap expressions cannot read `secret`: secret outputs may only be written to Secrets (use secretExpressions)"},
		{name: "every problem reported", compile: true,
			ops: azurev1alpha1.OperatorExpressions{
				SecretExpressions:    []dest{{Name: "s", Key: "a", Value: `1`}},
				ConfigMapExpressions: []dest{{Name: "c", Value: `self.metadata.name + "-cm"`}},
			},
			want: `secretExpressions[0] (key "a"): expression must return a string or a map(string, string), but it returns int (convert it with string(...)); ` +
				`configMapExpressions[0] (ConfigMap "c"): key is empty, so the expression must return a map(string, string) whose entries become keys, but it returns string (set key)`},
		{name: "key with a map", compile: true,
			ops:  azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{{Name: "c", Key: "k", Value: `{"a": "b"}`}}},
			want: `configMapExpressions[0] (key "k"): key is set, so the expression must return a string, but it returns map(string, string) (remove key to write each map entry as a key)`},
		{name: "duplicate key", compile: true,
			ops: azurev1alpha1.OperatorExpressions{SecretExpressions: []dest{
				{Name: "s", Key: "k", Value: `"a"`},
				{Name: "s", Key: "k", Value: `"b"`},
			}},
			want: `secretExpressions[1] (key "k"): Secret "s" key "k" is already written by secretExpressions[0] (key "k"); each key must have one writer`},
		{name: "map entry conflicts with a key",
			ops: azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{
				{Name: "c", Key: "env", Value: `"x"`},
				{Name: "c", Value: `self.spec.tags`},
			}},
			want: `configMapExpressions[1] (ConfigMap "c"): ConfigMap "c" key "env" is already written by configMapExpressions[0] (key "env"); each key must have one writer`},
		{name: "dyn map for a key",
			ops:  azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{{Name: "c", Key: "k", Value: `self.spec.tags`}}},
			want: `configMapExpressions[0] (key "k"): key is set, so the expression must return a string, but it returned a map (remove key to write each map entry as a key)`},
		{name: "invalid map key",
			ops:  azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{{Name: "c", Value: `{"a b": "x"}`}}},
			want: `configMapExpressions[0] (ConfigMap "c"): returned key "a b": must consist of alphanumeric characters, '-', '_' or '.'`},
		{name: "missing secret",
			ops:  azurev1alpha1.OperatorExpressions{SecretExpressions: []dest{{Name: "s", Key: "k", Value: `secret.key9`}}},
			want: `secretExpressions[0] (key "k"): no such key: key9`},
		{name: "too much data",
			ops: azurev1alpha1.OperatorExpressions{ConfigMapExpressions: []dest{
				{Name: "c", Key: "a", Value: `self.spec.half`},
				{Name: "c", Key: "b", Value: `self.spec.half`},
				{Name: "c", Key: "c", Value: `self.spec.half`},
			}},
			want: `configMapExpressions: ConfigMap "c" would hold 1572867 bytes, more than the 1048576 a ConfigMap may hold`},
	}
	self := storageAccount()
	self["spec"].(map[string]any)["half"] = strings.Repeat("h", 1<<19)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verr := ValidateAll(e, &tt.ops)
			if tt.compile != (verr != nil) {
				t.Fatalf("ValidateAll: %v", verr)
			}
			if verr != nil {
				var ce *CompileError
				if !errors.As(verr, &ce) || ce.Field == "" {
					t.Fatalf("ValidateAll: %T %v", verr, verr)
				}
			}
			s, c, err := Apply(context.Background(), e, &tt.ops, self, storageSecrets)
			if err == nil || s != nil || c != nil {
				t.Fatalf("Apply: got %v %v %v", s, c, err)
			}
			if err.Error() != tt.want {
				t.Fatalf("got  %s\nwant %s", err.Error(), tt.want)
			}
			if !tt.compile {
				var ee *EvalError
				if !errors.As(err, &ee) {
					t.Fatalf("%T, want *EvalError", err)
				}
			}
		})
	}
}

func applyBenchOps() *azurev1alpha1.OperatorExpressions {
	return &azurev1alpha1.OperatorExpressions{
		SecretExpressions: []dest{
			{Name: "storage", Key: "conn", Value: benchExpr},
			{Name: "storage", Value: `{"key2": secret.key2}`},
		},
		ConfigMapExpressions: []dest{
			{Name: "endpoints", Key: "blob", Value: `self.status.primaryEndpoints.blob`},
			{Name: "endpoints", Value: `self.spec.tags`},
		},
	}
}
