package kinds

import (
	"context"
	"errors"
	"maps"
	"testing"
)

// The answers of secret actions become CEL's secret.<path>: top-level strings by name,
// listed keys by their name (or index), an earlier action's value kept.
func TestActionSecrets(t *testing.T) {
	answers := map[string]map[string]any{
		"listCredentials": {"username": "reg1", "passwords": []any{
			map[string]any{"name": "password", "value": "p1"}, map[string]any{"name": "password2", "value": "p2"}}},
		"listKeys": {"username": "other", "value": []any{map[string]any{"connectionString": "c0"}}, "count": 2.0},
	}
	call := func(_ context.Context, action string) (map[string]any, error) { return answers[action], nil }
	got, err := actionSecrets(t.Context(), call, []string{"listCredentials", "listKeys"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"username": "reg1", "passwords.password.name": "password", "passwords.password.value": "p1",
		"passwords.password2.name": "password2", "passwords.password2.value": "p2", "value.0.connectionString": "c0"}
	if !maps.Equal(got, want) {
		t.Errorf("secrets %v, want %v", got, want)
	}
	failing := func(context.Context, string) (map[string]any, error) { return nil, errors.New("403") }
	if _, err := actionSecrets(t.Context(), failing, []string{"listKeys"}); err == nil || err.Error() != "listKeys: 403" {
		t.Errorf("error %v, want the action named", err)
	}
}
