package reconcilers

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every mode runs the guards, and runs them before any step that calls
// Azure; the doc's flow names the pipeline's steps in its order.
func TestThePipelineGuardsEveryMode(t *testing.T) {
	index := func(name string) int {
		return slices.IndexFunc(pipeline, func(s step) bool { return s.name == name })
	}
	admit := index("admit")
	if admit < 0 {
		t.Fatal("no admit step")
	}
	for _, m := range []mode{modeManage, modeObserve, modePreview, modeDelete} {
		if pipeline[admit].modes&m == 0 {
			t.Errorf("mode %b does not run the guards", m)
		}
	}
	for _, callsAzure := range []string{"verify", "resume", "read", "act"} {
		if i := index(callsAzure); i < admit {
			t.Errorf("step %s (calls Azure) is at %d, before the guards at %d", callsAzure, i, admit)
		}
	}
	names := map[string]bool{}
	for _, s := range pipeline {
		if names[s.name] {
			t.Errorf("step %s listed twice", s.name)
		}
		names[s.name] = true
	}
}

// No step writes a requeue of its own: durations are the requeue table's
// (requeue.go), or the sync period, PollInterval and Retry-After.
func TestRequeuesComeFromTheTable(t *testing.T) {
	literal := regexp.MustCompile(`\.(after|waiting)\([^)]*time\.(Second|Minute|Hour|Millisecond)`)
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		n := f.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == "requeue.go" {
			continue
		}
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if literal.MatchString(line) {
				t.Errorf("%s:%d: a requeue written as a literal: %s", n, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// Every Ready reason has its row in the requeue table, and a reason that
// waits for a change no event reports is looked at again.
func TestEveryReasonWaits(t *testing.T) {
	for _, rc := range readyReasons {
		w, ok := waits[rc.Reason]
		if !ok {
			t.Errorf("reason %s has no row in the requeue table", rc.Reason)
			continue
		}
		if rc.Class == ClassTransient && rc.Reason != ReasonReconciling && w.after == 0 {
			t.Errorf("transient reason %s is never retried", rc.Reason)
		}
	}
	for reason := range waits {
		if _, ok := reasonIndex[reason]; !ok {
			t.Errorf("the requeue table has a row for %s, which is no Ready reason", reason)
		}
	}
}

// The package doc's flow lists the pipeline's steps, in its order, and
// reconciler.go stays the short page issue 28 asked for.
func TestDocNamesThePipeline(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	at := strings.Index(doc, "// # Reconcile flow")
	if at < 0 {
		t.Fatal("doc.go has no Reconcile flow section")
	}
	for _, s := range pipeline {
		i := regexp.MustCompile(`//   - ` + s.name + `[ :]`).FindStringIndex(doc[at:])
		if i == nil {
			t.Fatalf("doc.go's flow does not name step %q where the steps before it end", s.name)
		}
		at += i[1]
	}
	src, err := os.ReadFile("reconciler.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > 250 {
		t.Errorf("reconciler.go has %d lines; it holds Reconcile, conclude and the pipeline in at most 250", n)
	}
}
