package stacktest

import (
	"strings"
	"testing"

	"github.com/aztenant/aztenant/emulator"
)

// Stacks answer from Azure's examples unless AZTENANT_EMULATOR_ANSWERS says echo; it turns
// on perturbed writes, and a malformed value is refused with what it wants.
func TestAnswersFromEnv(t *testing.T) {
	for _, c := range []struct {
		env      string
		examples bool
		seed     *uint64
		err      string
	}{
		{env: "", examples: true},
		{env: "examples", examples: true},
		{env: "echo"},
		{env: "examples, perturb=7", examples: true, seed: ptrTo(uint64(7))},
		{env: "echo,perturb=7", seed: ptrTo(uint64(7))},
		{env: "perturb=x", err: "wants a seed"},
		{env: "echo,examples", err: "echo and examples both"},
		{env: "replay", err: "none of echo, examples"},
	} {
		t.Setenv(AnswersEnv, c.env)
		var cfg emulator.Config
		err := AnswersFromEnv(&cfg)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error saying %q", c.env, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.env, err)
		case cfg.AnswerFromExamples != c.examples || (c.seed == nil) != (cfg.PerturbWrites == nil) ||
			c.seed != nil && cfg.PerturbWrites.Seed != *c.seed:
			t.Errorf("%q: examples %v perturb %+v", c.env, cfg.AnswerFromExamples, cfg.PerturbWrites)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
