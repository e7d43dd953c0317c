package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
)

// Config sizes the scenarios. FullConfig is what `make bench` runs,
// QuickConfig what the runner's own test runs.
type Config struct {
	// converge: ResourceGroups and StorageAccounts across Namespaces (one
	// identity each).
	Namespaces      int `json:"namespaces"`
	ResourceGroups  int `json:"resourceGroups"`
	StorageAccounts int `json:"storageAccounts"`
	// steady: the operator's --sync-period while converge and steady run;
	// the steady window is one period plus its jitter.
	SyncPeriod time.Duration `json:"syncPeriod"`
	// throttled: resource groups of one tenant under the emulator's
	// per-principal budgets (fixed windows, like ARM's limits).
	Throttled      int           `json:"throttled"`
	ThrottleReads  int           `json:"throttleReads"`
	ThrottleWrites int           `json:"throttleWrites"`
	ThrottleWindow time.Duration `json:"throttleWindow"`
	// The same with a budget below the operator's own pacing (10 writes/s
	// per principal), where only honouring Retry-After avoids a 429 storm.
	TightThrottled int `json:"tightThrottled"`
	TightReads     int `json:"tightReads"`
	TightWrites    int `json:"tightWrites"`
	// idle: total objects once filled up, and the idle window measured after
	// the operator restarted with the default sync period and settled.
	Objects int           `json:"objects"`
	Idle    time.Duration `json:"idle"`
	// fairness: resource groups the big tenant creates just before the small
	// tenant's one (on top of Objects).
	Backlog int `json:"backlog"`
	// Workers is the operator's --workers; Clients the goroutines creating
	// objects.
	Workers int `json:"workers"`
	Clients int `json:"clients"`
}

// FullConfig is the sizes.
func FullConfig() Config {
	return Config{Namespaces: 20, ResourceGroups: 1000, StorageAccounts: 200, SyncPeriod: 30 * time.Second,
		Throttled: 300, ThrottleReads: 120, ThrottleWrites: 60, ThrottleWindow: 5 * time.Second,
		TightThrottled: 100, TightReads: 40, TightWrites: 20,
		Backlog: 2000, Objects: 10000, Idle: 30 * time.Second, Workers: 8, Clients: 32}
}

// QuickConfig runs every scenario at a small size, to test the runner.
func QuickConfig() Config {
	return Config{Namespaces: 2, ResourceGroups: 20, StorageAccounts: 4, SyncPeriod: 10 * time.Second,
		Throttled: 20, ThrottleReads: 24, ThrottleWrites: 12, ThrottleWindow: 2 * time.Second,
		TightThrottled: 20, TightReads: 12, TightWrites: 6,
		Backlog: 60, Objects: 150, Idle: 3 * time.Second, Workers: 8, Clients: 16}
}

// Scenario names, in the order they run.
const (
	ScenarioConverge  = "converge"
	ScenarioSteady    = "steady"
	ScenarioCeiling   = "ceiling"
	ScenarioThrottled = "throttled"
	ScenarioFairness  = "fairness"
	ScenarioIdle      = "idle-10k"
)

// Scenarios lists every scenario the report covers.
var Scenarios = []string{ScenarioConverge, ScenarioSteady, ScenarioCeiling, ScenarioThrottled, ScenarioIdle, ScenarioFairness}

// AnswersSeed is the seed of the Azure-like answers the stack's emulator gives (issue
// 27): every write of a kind the bench creates is answered as Azure's examples say (the
// generated kinds') and then through the transforms emulator.Perturb picks with this
// seed, so steady's writes are counted against answers that are not echoes.
const AnswersSeed uint64 = 27

// answeredTypes are the ARM types of the kinds the scenarios create, all hand-written,
// so perturbed by name (a generated kind's writes are perturbed anyway).
var answeredTypes = []string{"Microsoft.Resources/resourceGroups", "Microsoft.Storage/storageAccounts"}

// steadyOps are the transforms the emulator answers with: every one but
// changeAfterSucceeded, a value Azure recomputes after provisioning, which by design
// costs one write before the operator records it (failure mode F1,
// docs/design/azure-answers.md) and so would fall in steady's window.
func steadyOps() []emulator.AnswerOp {
	return slices.DeleteFunc(slices.Clone(emulator.AnswerOps), func(op emulator.AnswerOp) bool { return op == emulator.OpChangeAfterSucceeded })
}

// Run starts the stack in dir, runs the scenarios in order and returns the
// report. A scenario that fails is recorded in Failures and ends the run
// (later ones depend on its objects).
func Run(ctx context.Context, dir string, cfg Config, quick bool, progress io.Writer) (*Report, error) {
	return RunUntil(ctx, dir, cfg, quick, progress, "")
}

// RunUntil is Run ending after the scenario last (every one when "").
func RunUntil(ctx context.Context, dir string, cfg Config, quick bool, progress io.Writer, last string) (*Report, error) {
	if last != "" && !slices.Contains(Scenarios, last) {
		return nil, fmt.Errorf("no scenario %q: want one of %v", last, Scenarios)
	}
	rep := &Report{Started: time.Now(), Quick: quick, Config: cfg, Machine: NewMachine()}
	defer func() {
		rep.Seconds = time.Since(rep.Started).Seconds()
		rep.Machine.LoadAvgAfter = loadAvg()
	}()
	s, err := Start(ctx, Options{Dir: dir, Progress: progress,
		Emulator: emulator.Config{AuditSize: 50000, AnswerFromExamples: true,
			PerturbWrites: &emulator.PerturbWrites{Seed: AnswersSeed, Ops: steadyOps(), Types: answeredTypes}},
		OperatorArgs: []string{fmt.Sprintf("--sync-period=%s", cfg.SyncPeriod), fmt.Sprintf("--workers=%d", cfg.Workers)}})
	if err != nil {
		return rep, err
	}
	defer s.Stop()
	rep.Conditions = conditionsOf(s)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr, err := NewTracker(tctx, s.CP.Config)
	if err != nil {
		return rep, err
	}
	r := &runner{s: s, tr: tr, cfg: cfg, rep: rep}
	for _, step := range []struct {
		name string
		run  func(context.Context) error
	}{
		{ScenarioConverge, r.converge}, {ScenarioSteady, r.steady}, {ScenarioCeiling, r.ceiling}, {ScenarioThrottled, r.throttled},
		// Fairness last: its backlog drains at the big tenant's ARM pace
		// (minutes), and nothing after it has to wait for that.
		{ScenarioIdle, r.idle}, {ScenarioFairness, r.fairness},
	} {
		s.progress("scenario %s", step.name)
		if err := step.run(ctx); err != nil {
			rep.Failures = append(rep.Failures, step.name+": "+err.Error())
			return rep, fmt.Errorf("%s: %w (logs in %s)", step.name, err, dir)
		}
		if step.name == last {
			break
		}
	}
	return rep, nil
}

type runner struct {
	s   *Stack
	tr  *Tracker
	cfg Config
	rep *Report
	// converged are the converge scenario's namespaces.
	converged []string
	// resources counts the objects created so far, all scenarios together.
	resources int
	// convergeRate is converge's resources Ready per second.
	convergeRate float64
}

// snapshot is the counters every scenario compares before and after.
type snapshot struct {
	at       time.Time
	emu      emulator.Counters
	tokens   float64
	operator Metrics
	usage    controlplane.Usage
}

func (r *runner) snap(ctx context.Context) (snapshot, error) {
	var sn snapshot
	var err error
	sn.at = time.Now()
	if sn.emu, err = r.s.Emulator.Counters(ctx); err != nil {
		return sn, err
	}
	api, err := r.s.APIServerMetrics(ctx)
	if err != nil {
		return sn, err
	}
	sn.tokens = api.TokenRequests()
	if sn.operator, err = r.s.OperatorMetrics(ctx); err != nil {
		return sn, err
	}
	sn.usage, err = r.s.Operator.Usage()
	return sn, err
}

func byMethod(a, b emulator.Counters, method string) float64 {
	return float64(b.ByMethod["arm "+method] - a.ByMethod["arm "+method])
}

func inSet(nss []string) func(string) bool {
	return func(ns string) bool { return slices.Contains(nss, ns) }
}

// waitIdentities waits until the namespaces' Identities exchanged a token.
func (r *runner) waitIdentities(ctx context.Context, nss []string, timeout time.Duration) error {
	return WaitUntil(ctx, 100*time.Millisecond, timeout, "Identities Ready", func() error {
		var l identityv1alpha1.IdentityList
		if err := r.tr.Reader().List(ctx, &l); err != nil {
			return err
		}
		ready := 0
		for _, id := range l.Items {
			c := meta.FindStatusCondition(id.Status.Conditions, "Ready")
			if slices.Contains(nss, id.Namespace) && c != nil && c.Status == metav1.ConditionTrue {
				ready++
			}
		}
		if ready < len(nss) {
			return fmt.Errorf("%d of %d", ready, len(nss))
		}
		return nil
	})
}

func rgName(ns string, i int) string { return fmt.Sprintf("%s-rg%05d", ns, i) }

func (r *runner) converge(ctx context.Context) error {
	cfg := r.cfg
	for i := range cfg.Namespaces {
		r.converged = append(r.converged, fmt.Sprintf("bench%02d", i))
	}
	before, err := r.snap(ctx)
	if err != nil {
		return err
	}
	if err := r.s.Onboard(ctx, r.converged...); err != nil {
		return err
	}
	if err := r.waitIdentities(ctx, r.converged, 2*time.Minute); err != nil {
		return err
	}
	var objs []client.Object
	for i := range cfg.ResourceGroups {
		ns := r.converged[i%cfg.Namespaces]
		objs = append(objs, ResourceGroup(ns, rgName(ns, i), map[string]string{"bench": "converge"}))
	}
	for j := range cfg.StorageAccounts {
		k := j % cfg.Namespaces
		ns := r.converged[k]
		// Owned by the namespace's first resource group; names are global.
		objs = append(objs, StorageAccount(ns, fmt.Sprintf("b%02dsa%05d", k, j), rgName(ns, k)))
	}
	n := len(objs)
	start := time.Now()
	if err := CreateAll(ctx, r.s.Client, cfg.Clients, objs); err != nil {
		return err
	}
	created := time.Since(start)
	if _, err := r.tr.WaitReady(ctx, n, inSet(r.converged), 200*time.Millisecond, 10*time.Minute); err != nil {
		return err
	}
	wall := time.Since(start)
	r.resources += n
	after, err := r.snap(ctx)
	if err != nil {
		return err
	}
	sc := ScenarioConverge
	r.rep.add(sc, fmt.Sprintf("resources (%d ResourceGroups + %d StorageAccounts, %d namespaces)", cfg.ResourceGroups, cfg.StorageAccounts, cfg.Namespaces), float64(n), "", nil)
	r.rep.add(sc, "objects created in the API server", created.Seconds(), "s", nil)
	r.rep.add(sc, "wall time to all Ready", wall.Seconds(), "s", nil)
	r.convergeRate = float64(n) / wall.Seconds()
	r.rep.add(sc, "resources Ready per second", r.convergeRate, "/s", &Aim{">=", 50})
	arm := float64(after.emu.ARM - before.emu.ARM)
	r.rep.add(sc, "ARM calls per resource", arm/float64(n), "", &Aim{"<=", 2})
	for _, m := range []string{"GET", "PUT", "PATCH", "POST", "DELETE"} {
		if v := byMethod(before.emu, after.emu, m); v > 0 || m == "GET" || m == "PUT" {
			r.rep.add(sc, "ARM "+m+"s per resource", v/float64(n), "", nil)
		}
	}
	for _, k := range []struct {
		kind  string
		count int
	}{{"ResourceGroup", cfg.ResourceGroups}, {"StorageAccount", cfg.StorageAccounts}} {
		calls := after.operator.Sum("aztenant_arm_requests_total", map[string]string{"kind": k.kind}) -
			before.operator.Sum("aztenant_arm_requests_total", map[string]string{"kind": k.kind})
		r.rep.add(sc, "ARM calls per "+k.kind+" (operator metrics)", calls/float64(k.count), "", &Aim{"<=", 2})
	}
	r.rep.add(sc, "Entra token exchanges (onboarding included)", float64(after.emu.TokensIssued-before.emu.TokensIssued), "", nil)
	r.rep.add(sc, "TokenRequests (API server, onboarding included)", after.tokens-before.tokens, "", nil)
	r.rep.add(sc, "ARM 429 / 5xx responses", float64(after.emu.Throttled)+float64(statusAtLeast(before.emu, after.emu, 500)), "", nil)
	r.rep.add(sc, "operator CPU", after.usage.CPUSeconds-before.usage.CPUSeconds, "s", nil)
	r.rep.add(sc, "operator peak RSS (VmHWM)", after.usage.PeakRSSMiB, "MiB", nil)
	return nil
}

func statusAtLeast(a, b emulator.Counters, min int) uint64 {
	var n uint64
	for code, v := range b.ByStatus {
		var c int
		if _, err := fmt.Sscan(code, &c); err == nil && c >= min {
			n += v - a.ByStatus[code]
		}
	}
	return n
}

func (r *runner) steady(ctx context.Context) error {
	n := float64(r.resources)
	before, err := r.snap(ctx)
	if err != nil {
		return err
	}
	since, err := r.s.Emulator.LastSeq(ctx)
	if err != nil {
		return err
	}
	// One period plus the tenth of jitter the operator adds, plus slack.
	window := r.cfg.SyncPeriod + r.cfg.SyncPeriod/10 + 2*time.Second
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(window):
	}
	after, err := r.snap(ctx)
	if err != nil {
		return err
	}
	writes := byMethod(before.emu, after.emu, "PUT") + byMethod(before.emu, after.emu, "PATCH") +
		byMethod(before.emu, after.emu, "POST") + byMethod(before.emu, after.emu, "DELETE")
	sc := ScenarioSteady
	r.rep.add(sc, fmt.Sprintf("window (one --sync-period=%s + jitter)", r.cfg.SyncPeriod), window.Seconds(), "s", nil)
	r.rep.add(sc, "ARM writes (PUT/PATCH/POST/DELETE)", writes, "", &Aim{"=", 0})
	// Per kind created, against Azure-like answers.
	all, err := r.s.Emulator.Audit(ctx, emulator.AuditFilter{Since: since, Service: "arm"})
	if err != nil {
		return err
	}
	perKind := map[string]int{}
	for _, e := range all {
		if e.Method != "GET" && e.Method != "HEAD" {
			perKind[kindOfPath(e.Path)]++
		}
	}
	for _, k := range []struct {
		kind  string
		count int
	}{{"ResourceGroup", r.cfg.ResourceGroups}, {"StorageAccount", r.cfg.StorageAccounts}} {
		r.rep.add(sc, fmt.Sprintf("ARM writes per %s per sync period (answers from Azure's examples, perturbed with seed %d)", k.kind, AnswersSeed),
			float64(perKind[k.kind])/float64(k.count), "", &Aim{"=", 0})
	}
	if n := perKind[""]; n > 0 {
		r.rep.add(sc, "ARM writes to other resources", float64(n), "", &Aim{"=", 0})
	}
	gets := byMethod(before.emu, after.emu, "GET")
	r.rep.add(sc, "ARM reads (GETs, list pages included) per resource per sync period", gets/n, "", &Aim{"<=", 0.1})
	gotten, err := r.s.Emulator.Audit(ctx, emulator.AuditFilter{Since: since, Service: "arm", Method: "GET"})
	if err != nil {
		return err
	}
	lists := 0
	for _, e := range gotten {
		if IsCollection(e.Path) {
			lists++
		}
	}
	r.rep.add(sc, "of which list calls (drift checks by collection)", float64(lists), "", nil)
	r.rep.add(sc, "Entra token exchanges", float64(after.emu.TokensIssued-before.emu.TokensIssued), "", nil)
	r.rep.add(sc, "operator CPU", after.usage.CPUSeconds-before.usage.CPUSeconds, "s", nil)
	return nil
}

// kindOfPath names the bench's kind an ARM path writes ("" for another).
func kindOfPath(path string) string {
	p := strings.ToLower(path)
	switch {
	case strings.Contains(p, "/providers/microsoft.storage/storageaccounts/"):
		return "StorageAccount"
	case strings.Contains(p, "/resourcegroups/") && !strings.Contains(p, "/providers/"):
		return "ResourceGroup"
	}
	return ""
}

// IsCollection reports whether an ARM path names a collection (a list: a
// type with no name after it) rather than one resource.
func IsCollection(path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	p := -1
	for i, s := range segs {
		if strings.EqualFold(s, "providers") {
			p = i
		}
	}
	if p < 0 {
		// /subscriptions/{s}/resourceGroups[/{rg}]
		return len(segs)%2 == 1
	}
	// providers/{namespace}/{type}[/{name}/{type}...]: a name closes each type.
	return (len(segs)-p-1)%2 == 0
}

// ceiling measures what the API server itself takes, on the same stack, for
// the writes that make a resource Ready (create, finalizer, status), with a
// plain client loop of converge's concurrency, in a namespace no Tenant
// selects (the operator leaves it alone); converge's rate is reported as a
// share of it.
func (r *runner) ceiling(ctx context.Context) error {
	const ns, finalizer = "bench-ceiling", "bench.aztenant.io/ceiling"
	n := r.cfg.ResourceGroups + r.cfg.StorageAccounts
	if err := r.s.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	objs := make([]*resourcesv1alpha1.ResourceGroup, n)
	for i := range objs {
		objs[i] = ResourceGroup(ns, fmt.Sprintf("ceiling-%05d", i), map[string]string{"bench": "ceiling"})
	}
	// Phase by phase, each a plain loop with converge's concurrency, as the
	// operator's writes for many objects overlap.
	create := func(ctx context.Context, rg *resourcesv1alpha1.ResourceGroup) error {
		return r.s.Client.Create(ctx, rg)
	}
	finalize := func(ctx context.Context, rg *resourcesv1alpha1.ResourceGroup) error {
		base := rg.DeepCopy()
		rg.Finalizers = append(rg.Finalizers, finalizer)
		return r.s.Client.Patch(ctx, rg, client.MergeFrom(base))
	}
	makeReady := func(ctx context.Context, rg *resourcesv1alpha1.ResourceGroup) error {
		base := rg.DeepCopy()
		rg.Status.ID = ResourceGroupID(rg.Name)
		rg.Status.ObservedGeneration = rg.Generation
		rg.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Succeeded",
			Message: "The resource is provisioned and matches its spec", ObservedGeneration: rg.Generation, LastTransitionTime: metav1.Now()}}
		return r.s.Client.Status().Patch(ctx, rg, client.MergeFrom(base))
	}
	start := time.Now()
	for _, phase := range []func(context.Context, *resourcesv1alpha1.ResourceGroup) error{create, finalize, makeReady} {
		if err := forEach(ctx, r.cfg.Clients, objs, phase); err != nil {
			return err
		}
	}
	wall := time.Since(start)
	rate := float64(n) / wall.Seconds()
	sc := ScenarioCeiling
	r.rep.add(sc, fmt.Sprintf("API server alone: %d objects created, finalized and made Ready by a plain client (%d in flight)", n, r.cfg.Clients), wall.Seconds(), "s", nil)
	r.rep.add(sc, "API server alone: objects per second (3 writes each)", rate, "/s", nil)
	r.rep.add(sc, "converge's resources Ready per second, as a share of it", 100*r.convergeRate/rate, "%", &Aim{">=", 50})
	// Gone again, so later scenarios count only their own objects.
	return forEach(ctx, r.cfg.Clients, objs, func(ctx context.Context, rg *resourcesv1alpha1.ResourceGroup) error {
		base := rg.DeepCopy()
		rg.Finalizers = nil
		if err := r.s.Client.Patch(ctx, rg, client.MergeFrom(base)); err != nil {
			return err
		}
		return client.IgnoreNotFound(r.s.Client.Delete(ctx, rg))
	})
}

// forEach runs f on every item with at most workers in flight and returns
// the first error.
func forEach[T any](ctx context.Context, workers int, items []T, f func(context.Context, T) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for _, it := range items {
		g.Go(func() error { return f(gctx, it) })
	}
	return g.Wait()
}

// budget is one run of the throttled scenario.
type budget struct {
	label, ns            string
	count, reads, writes int
}

func (r *runner) throttled(ctx context.Context) error {
	cfg := r.cfg
	for _, b := range []budget{
		{"ARM-like", "throttled", cfg.Throttled, cfg.ThrottleReads, cfg.ThrottleWrites},
		// Tighter than the operator's own pacing: only Retry-After can keep
		// it from a storm.
		{"tight", "throttled-tight", cfg.TightThrottled, cfg.TightReads, cfg.TightWrites},
	} {
		if err := r.throttle(ctx, b); err != nil {
			return fmt.Errorf("%s budget: %w", b.label, err)
		}
	}
	return nil
}

func (r *runner) throttle(ctx context.Context, b budget) error {
	cfg := r.cfg
	if err := r.s.Onboard(ctx, b.ns); err != nil {
		return err
	}
	if err := r.waitIdentities(ctx, []string{b.ns}, time.Minute); err != nil {
		return err
	}
	seq, err := r.s.Emulator.LastSeq(ctx)
	if err != nil {
		return err
	}
	before, err := r.s.Emulator.Counters(ctx)
	if err != nil {
		return err
	}
	if err := r.s.Emulator.SetFaults(ctx, emulator.Faults{Throttle: &emulator.Throttle{
		Reads: b.reads, Writes: b.writes, Window: emulator.Duration(cfg.ThrottleWindow)}}); err != nil {
		return err
	}
	defer r.s.Emulator.SetFaults(context.WithoutCancel(ctx), emulator.Faults{})
	var objs []client.Object
	for i := range b.count {
		objs = append(objs, ResourceGroup(b.ns, rgName(b.ns, i), nil))
	}
	start := time.Now()
	if err := CreateAll(ctx, r.s.Client, cfg.Clients, objs); err != nil {
		return err
	}
	if _, err := r.tr.WaitReady(ctx, len(objs), inSet([]string{b.ns}), 200*time.Millisecond, 10*time.Minute); err != nil {
		return err
	}
	wall := time.Since(start)
	r.resources += len(objs)
	all, err := r.s.Emulator.Audit(ctx, emulator.AuditFilter{Since: seq, ClientID: ClientID(b.ns)})
	if err != nil {
		return err
	}
	after, err := r.s.Emulator.Counters(ctx)
	if err != nil {
		return err
	}
	var entries []emulator.AuditEntry
	var pid string
	for _, e := range all {
		if e.Service == "arm" {
			entries = append(entries, e)
		}
		if e.PrincipalID != "" {
			pid = e.PrincipalID
		}
	}
	// The counters are never truncated; the audit ring may have wrapped.
	if counted := after.ByPrincipal[pid] - before.ByPrincipal[pid]; uint64(len(all)) < counted {
		return fmt.Errorf("the emulator's audit ring lost %d of the tenant's %d calls", counted-uint64(len(all)), counted)
	}
	st := retryAfterStats(entries, cfg.ThrottleWindow, 100*time.Millisecond)
	// The fastest possible: every resource needs a PUT, at the budget's pace.
	floor := float64(b.count)/float64(b.writes)*cfg.ThrottleWindow.Seconds() - cfg.ThrottleWindow.Seconds()
	sc := ScenarioThrottled
	p := b.label + ": "
	r.rep.add(sc, fmt.Sprintf("%s%d reads, %d writes per %s per principal", p, b.reads, b.writes, cfg.ThrottleWindow), float64(b.count), "resources", nil)
	r.rep.add(sc, p+"convergence time", wall.Seconds(), "s", nil)
	r.rep.add(sc, p+"fastest the budget allows", max(floor, 0), "s", nil)
	r.rep.add(sc, p+"ARM calls", float64(st.calls), "", nil)
	r.rep.add(sc, p+"429 responses", float64(st.throttled), "", nil)
	r.rep.add(sc, p+"429 responses per 100 calls (no storm)", 100*float64(st.throttled)/float64(max(st.calls, 1)), "", &Aim{"<=", 10})
	r.rep.add(sc, p+"calls sent inside a Retry-After of the same budget", float64(st.violations), "", &Aim{"=", 0})
	return nil
}

type raStats struct{ calls, throttled, violations int }

// retryAfterStats replays one principal's calls through the emulator's fixed
// windows (a window starts with the first call after the previous one ended):
// a 429 tells the client to wait until its window ends, so any call of the
// same budget (reads or writes) sent after the 429 (plus grace for calls
// already in flight) and before the window's end ignored Retry-After.
func retryAfterStats(entries []emulator.AuditEntry, window, grace time.Duration) raStats {
	var st raStats
	slices.SortFunc(entries, func(a, b emulator.AuditEntry) int { return a.Time.Compare(b.Time) })
	var wStart time.Time
	// blocked[read?] is the end of the current wait and when it began.
	type wait struct{ from, until time.Time }
	blocked := map[bool]wait{}
	for _, e := range entries {
		st.calls++
		if wStart.IsZero() || e.Time.Sub(wStart) >= window {
			wStart = e.Time
		}
		read := e.Method == "GET" || e.Method == "HEAD"
		if b, ok := blocked[read]; ok && e.Time.After(b.from.Add(grace)) && e.Time.Before(b.until) {
			st.violations++
		}

		if e.Status == 429 {
			st.throttled++
			if b := blocked[read]; !b.until.Equal(wStart.Add(window)) {
				blocked[read] = wait{from: e.Time, until: wStart.Add(window)}
			}
		}
	}
	return st
}

func (r *runner) fairness(ctx context.Context) error {
	if err := r.s.Onboard(ctx, "big", "small"); err != nil {
		return err
	}
	if err := r.waitIdentities(ctx, []string{"big", "small"}, time.Minute); err != nil {
		return err
	}
	var objs []client.Object
	for i := range r.cfg.Backlog {
		objs = append(objs, ResourceGroup("big", rgName("big", i), nil))
	}
	if err := CreateAll(ctx, r.s.Client, r.cfg.Clients, objs); err != nil {
		return err
	}
	small := ResourceGroup("small", "small-app", nil)
	start := time.Now()
	if err := r.s.Client.Create(ctx, small); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := r.tr.Reader().Get(ctx, client.ObjectKeyFromObject(small), small)
		return err == nil && IsReady(small), nil
	}); err != nil {
		return fmt.Errorf("the small tenant's resource group was not Ready within 2 minutes: %w", err)
	}
	latency := time.Since(start)
	big, err := r.tr.Count(ctx, inSet([]string{"big"}))
	if err != nil {
		return err
	}
	r.resources += len(objs) + 1
	sc := ScenarioFairness
	r.rep.add(sc, fmt.Sprintf("big tenant's resource groups (on top of %d objects)", r.resources-len(objs)-1), float64(r.cfg.Backlog), "", nil)
	r.rep.add(sc, "small tenant's resource group Ready after", latency.Seconds(), "s", &Aim{"<", 2})
	r.rep.add(sc, "big tenant's still pending then", float64(big.Total-big.Ready), "", nil)
	return nil
}

func (r *runner) idle(ctx context.Context) error {
	cfg := r.cfg
	// Restart with the default sync period (1h): idle means no resync is due,
	// and a restart with thousands of objects is itself worth measuring.
	r.s.Operator.Stop(30 * time.Second)
	r.s.Operator.Args = slices.DeleteFunc(r.s.Operator.Args, func(a string) bool { return strings.HasPrefix(a, "--sync-period=") })
	if err := r.s.StartOperator(ctx); err != nil {
		return err
	}
	var objs []client.Object
	for i := 0; r.resources+len(objs) < cfg.Objects; i++ {
		ns := r.converged[i%len(r.converged)]
		objs = append(objs, ResourceGroup(ns, fmt.Sprintf("%s-fill%05d", ns, i), nil))
	}
	start := time.Now()
	if err := CreateAll(ctx, r.s.Client, cfg.Clients, objs); err != nil {
		return err
	}
	r.resources += len(objs)
	if _, err := r.tr.WaitReady(ctx, r.resources, nil, time.Second, 15*time.Minute); err != nil {
		return err
	}
	ready := time.Since(start)
	// Settled: no ARM call for 5 s.
	var last uint64
	quiet := time.Time{}
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		c, err := r.s.Emulator.Counters(ctx)
		if err != nil {
			return false, err
		}
		if c.ARM != last {
			last, quiet = c.ARM, time.Now()
			return false, nil
		}
		return time.Since(quiet) >= 5*time.Second, nil
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		return errors.New("ARM calls did not stop within 5 minutes of everything Ready")
	}
	if err != nil {
		return err
	}
	before, err := r.snap(ctx)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(cfg.Idle):
	}
	after, err := r.snap(ctx)
	if err != nil {
		return err
	}
	cpu := after.usage.CPUSeconds - before.usage.CPUSeconds
	sc := ScenarioIdle
	r.rep.add(sc, "objects (all Ready)", float64(r.resources), "", nil)
	r.rep.add(sc, "time to all Ready after restart with the default --sync-period and the fill", ready.Seconds(), "s", nil)
	r.rep.add(sc, fmt.Sprintf("operator CPU over the %s idle window", cfg.Idle), cpu, "s", nil)
	r.rep.add(sc, "operator CPU at idle", 100*cpu/cfg.Idle.Seconds(), "%", nil)
	r.rep.add(sc, "operator RSS at idle (VmRSS)", after.usage.RSSMiB, "MiB", &Aim{"<", 200})
	r.rep.add(sc, "operator peak RSS since restart (VmHWM)", after.usage.PeakRSSMiB, "MiB", nil)
	r.rep.add(sc, "ARM calls in the idle window", float64(after.emu.ARM-before.emu.ARM), "", nil)
	return nil
}
