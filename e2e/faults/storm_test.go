package faults_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/bench"
	"github.com/aztenant/aztenant/reconcilers"
)

// A storm of 5xx answers from ARM: resources show AzureUnavailable while it
// lasts, the operator does not hammer ARM (bounded calls per object, also
// with 503s whose Retry-After is 10 ms), and everything converges once it
// ends, with one PUT per resource.
func TestErrorStormThenConverge(t *testing.T) {
	s := getStack(t)
	ctx := t.Context()
	const ns = "storm"
	onboard(t, s, ns)
	for _, status := range []int{500, 503} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var objs []azurev1alpha1.Resource
			var cobjs []client.Object
			for i := range 6 {
				rg := bench.ResourceGroup(ns, fmt.Sprintf("%s-%d-rg%d", ns, status, i), nil)
				objs, cobjs = append(objs, rg), append(cobjs, rg)
			}
			sa := bench.StorageAccount(ns, fmt.Sprintf("storm%dsa", status), objs[0].GetName())
			objs, cobjs = append(objs, sa), append(cobjs, sa)

			since := lastSeq(t, s)
			// The storm lasts 10 s, longer (up to 40 s) until some object has
			// shown it: an SDK call gives up after 4 tries over about 6 s, so on
			// a slow machine 10 s can pass before any reconcile fails outright.
			const minStorm, maxStorm = 10 * time.Second, 40 * time.Second
			if err := s.Emulator.SetFaults(ctx, emulator.Faults{ErrorRate: 0.8, ErrorStatus: status, Seed: uint64(status)}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			create(t, s, cobjs...)
			seen := map[string]bool{}
			for time.Since(start) < minStorm || (len(seen) == 0 && time.Since(start) < maxStorm) {
				for _, o := range objs {
					cur := o.DeepCopyObject().(azurev1alpha1.Resource)
					if err := tracker.Reader().Get(ctx, client.ObjectKeyFromObject(o), cur); err == nil {
						if c := readyCondition(cur); c != nil && c.Reason == reconcilers.ReasonAzureUnavailable && c.Status != "True" {
							seen[o.GetName()] = true
						}
					}
				}
				time.Sleep(100 * time.Millisecond)
			}
			storm := time.Since(start).Round(time.Second)
			if err := s.Emulator.SetFaults(ctx, emulator.Faults{}); err != nil {
				t.Fatal(err)
			}
			calls := armCalls(t, s, since, ns)
			failed := 0
			for _, e := range calls {
				if e.Status >= 500 {
					failed++
				}
			}
			t.Logf("%d storm: %d ARM calls (%d failed) for %d objects in %s; %d showed %s", status, len(calls), failed, len(objs), storm, len(seen), reconcilers.ReasonAzureUnavailable)
			if len(seen) == 0 {
				t.Errorf("no object showed %s during the storm", reconcilers.ReasonAzureUnavailable)
			}
			// The SDK tries 4 times per call; a reconcile makes 2 or 3 calls;
			// without a hot loop an object is reconciled a few times in 10 s:
			// at most 4 calls a second per object.
			if perObject := float64(len(calls)) / float64(len(objs)); perObject > 4*storm.Seconds() {
				t.Errorf("%.0f ARM calls per object during a %s storm: a hot loop", perObject, storm)
			}

			waitAllReady(t, 90*time.Second, objs)
			puts := map[string]int{}
			for _, e := range armCalls(t, s, since, ns) {
				if e.Method == "PUT" && e.Status < 300 {
					puts[strings.ToLower(e.Path)]++
				}
			}
			for path, n := range puts {
				if n > 1 {
					t.Errorf("%d successful PUTs of %s", n, path)
				}
			}
		})
	}
}

// Every ARM request takes 1.5 s: resources converge anyway, with one PUT
// each and no retries caused by the wait.
func TestLatencyStormConverges(t *testing.T) {
	s := getStack(t)
	ctx := t.Context()
	const ns = "slow"
	onboard(t, s, ns)
	since := lastSeq(t, s)
	if err := s.Emulator.SetFaults(ctx, emulator.Faults{Latency: emulator.Duration(1500 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	var objs []azurev1alpha1.Resource
	var cobjs []client.Object
	for i := range 6 {
		rg := bench.ResourceGroup(ns, fmt.Sprintf("%s-rg%d", ns, i), nil)
		objs, cobjs = append(objs, rg), append(cobjs, rg)
	}
	start := time.Now()
	create(t, s, cobjs...)
	waitAllReady(t, 90*time.Second, objs)
	t.Logf("6 resource groups Ready in %s with 1.5 s per ARM call", time.Since(start).Round(100*time.Millisecond))
	calls := armCalls(t, s, since, ns)
	methods := map[string]int{}
	for _, e := range calls {
		methods[e.Method]++
	}
	if methods["PUT"] != len(objs) || len(calls) > 2*len(objs) {
		t.Errorf("ARM calls by method %v for %d resource groups, want one GET and one PUT each", methods, len(objs))
	}
}
