package emulator_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

func TestThrottlingIsRetriedBySDK(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "busy")
	groups := f.groups(t, cred)
	f.emu.SetFaults(emulator.Faults{Throttle: &emulator.Throttle{Reads: 2, Window: emulator.Duration(150 * time.Millisecond)}})
	since := lastSeq(f)
	for i := range 3 {
		if _, err := groups.Get(ctxT(t), "busy", nil); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	var statuses []int
	for _, e := range f.emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"}) {
		statuses = append(statuses, e.Status)
		if e.Status == 429 && (e.Fault != "throttled" || e.ErrorCode != "TooManyRequests") {
			t.Errorf("429 entry: %+v", e)
		}
	}
	// Two reads fit the budget, the third is throttled, the SDK waits Retry-After and retries.
	if want := []int{200, 200, 429, 200}; !equalInts(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if c := f.emu.Counters(); c.Throttled != 1 {
		t.Errorf("throttled counter %d", c.Throttled)
	}
	// Writes have their own budget.
	f.emu.SetFaults(emulator.Faults{Throttle: &emulator.Throttle{Reads: 1, Writes: 100, Window: emulator.Duration(time.Hour)}})
	if _, err := groups.Get(ctxT(t), "busy", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(ctxT(t), "busy", armresources.ResourceGroup{Location: to.Ptr("westeurope")}, nil); err != nil {
		t.Errorf("write throttled by the read budget: %v", err)
	}
}

func TestInjectedFailures(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "faults")
	res := f.resources(t, cred)
	id := rgScope + "faults/providers/Microsoft.Test/widgets/w"

	t.Run("transient 503 is retried", func(t *testing.T) {
		f.emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{ResourceType: widgetsType, Method: "PUT", Count: 2, Status: 503}}})
		since := lastSeq(f)
		if _, err := put(t, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
			t.Fatal(err)
		}
		var statuses []int
		for _, e := range f.emu.Audit(emulator.AuditFilter{Since: since, Method: "PUT"}) {
			statuses = append(statuses, e.Status)
		}
		if want := []int{503, 503, 201}; !equalInts(statuses, want) {
			t.Errorf("PUT statuses %v, want %v", statuses, want)
		}
	})
	t.Run("terminal 409 is reported", func(t *testing.T) {
		f.emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{ResourceType: widgetsType, Method: "PUT", Count: 1, Status: 409, Code: "ScopeLocked", Message: "The scope is locked."}}})
		_, err := put(t, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
		if err == nil {
			t.Fatal("succeeded")
		}
		if status, code := responseError(t, err); status != 409 || code != "ScopeLocked" {
			t.Errorf("got %d %s", status, code)
		}
	})
	t.Run("error rate is deterministic for a seed", func(t *testing.T) {
		run := func() []int {
			f.emu.SetFaults(emulator.Faults{Seed: 42, ErrorRate: 0.5, ErrorStatus: 400})
			since := lastSeq(f)
			for range 12 {
				res.GetByID(ctxT(t), id, "2024-01-01", nil)
			}
			var s []int
			for _, e := range f.emu.Audit(emulator.AuditFilter{Since: since}) {
				s = append(s, e.Status)
			}
			return s
		}
		a, b := run(), run()
		if !equalInts(a, b) {
			t.Errorf("same seed, different outcomes:\n%v\n%v", a, b)
		}
		failures := 0
		for _, s := range a {
			if s == 400 {
				failures++
			}
		}
		if failures == 0 || failures == len(a) {
			t.Errorf("error rate 0.5 gave %d failures of %d", failures, len(a))
		}
	})
	t.Run("latency is added", func(t *testing.T) {
		f.emu.SetFaults(emulator.Faults{Latency: emulator.Duration(60 * time.Millisecond)})
		start := time.Now()
		if _, err := res.GetByID(ctxT(t), id, "2024-01-01", nil); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 60*time.Millisecond {
			t.Errorf("call took %s", d)
		}
	})
	t.Run("slow operation stays in progress", func(t *testing.T) {
		f.emu.SetFaults(emulator.Faults{OperationDuration: emulator.Duration(150 * time.Millisecond)})
		f.emu.SetLRO(widgetsType, emulator.LROConfig{Write: emulator.LROAsyncOperation})
		start := time.Now()
		p, err := res.BeginCreateOrUpdateByID(ctxT(t), id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.GetByID(ctxT(t), id, "2024-01-01", nil)
		if err != nil {
			t.Fatal(err)
		}
		if st := props(got.GenericResource)["provisioningState"]; st != "Updating" {
			t.Errorf("provisioningState during the operation: %v", st)
		}
		if _, err := p.PollUntilDone(ctxT(t), fastPoll); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("operation finished after %s", d)
		}
	})
	f.emu.SetFaults(emulator.Faults{})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
