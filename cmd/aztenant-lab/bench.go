package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/aztenant/aztenant/internal/lab/bench"
)

type benchOptions struct {
	out, dir string
	// markdown is the benchmarks page written from the report ("": none);
	// from is a results file to render instead of running ("": run).
	markdown, from string
	quick          bool
	keep           bool
	// scenario is "all" (or empty), "stack" (the six scenarios that share
	// one stack), "footprint" or "shards" (not part of all).
	scenario string
}

func newBenchCommand() *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the operator as a process against the emulator: converge, steady state, the API server ceiling, throttling, fairness, 10,000 objects at idle, footprint",
		Long: `bench starts etcd, kube-apiserver, the Azure emulator and the operator as separate
processes (binaries from bin/, built by make build), runs seven scenarios and prints
scenario | figure | value | aim | met?. It writes the same figures as JSON.

  converge   1,000 ResourceGroups + 200 StorageAccounts in 20 namespaces (20 identities) to Ready
  steady     one compressed sync period (--sync-period=30s) afterwards: writes (per kind created),
             and reads per resource (drift checks by list); the emulator answers every write as
             Azure would (its documented examples, then Azure-like transforms of a fixed seed:
             case, display-name locations, added defaults and set elements, dropped values,
             reordered sets, forced values ...), so 0 writes means steady on such answers
  ceiling    the API server alone: a plain client creates, finalizes and makes Ready as many
             ResourceGroups as converge made Ready; converge's rate as a share of it
  throttled  300 resource groups of one tenant under emulator budgets of 120 reads / 60 writes per 5 s
             (ARM-like), then 100 of another under 40 / 20 (tighter than the operator's own pacing)
  idle-10k   the operator restarted with the default sync period, filled to 10,000 objects,
             settled (no ARM call for 5 s), then measured over a 30 s idle window
  fairness   a tenant's one resource group created behind another tenant's 2,000 (on top
             of the 10,000)
  footprint  on a fresh etcd and kube-apiserver of its own, after the stack above stopped:
             kube-apiserver RSS with no CRDs, with the non-generated CRDs (tenancy, identity,
             hand-written Azure kinds), then with the kindgen ones too (the per-kind delta),
             then once OpenAPI v2/v3 were served; the time to install and establish them;
             CRD YAML sizes; the operator's start-up time (to /readyz, and until every
             controller started its workers) and RSS with all kinds installed

--scenario runs only some: stack (the first six, which build on each other), steady
(converge, then steady), or footprint; or, not part of all, shards:

  shards     on a stack of its own, the operator without --shards (the baseline), then as 1, 2
             and 4 replicas with --shards=4 (one run after the other, each on fresh namespaces:
             max(20, 8) of them, the converge
             workload's 1,000 ResourceGroups + 200 StorageAccounts): converge wall time, each
             replica's RSS and objects cached (aztenant_shard_cached_objects, as a share of all
             the cluster's objects; aim for 4 replicas: <= 30 % each), then SIGKILL of the
             replica caching most: the time until a new resource group in each of its
             namespaces is Ready (failover) and until its shard leases are held by others.

Operator CPU seconds come from /proc/<pid>/stat (utime+stime), RSS from /proc/<pid>/status
(VmRSS, VmHWM; the footprint's are medians of samples taken once the process was quiet for
30 s, a garbage collection ended (go_gc_duration_seconds_count) and they are flat: minutes);
ARM calls and Entra exchanges from the emulator's counters and audit log and the operator's
metrics; TokenRequests from the API server's apiserver_request_total.
Unmet aims do not fail the command; a scenario that cannot finish does.

--markdown FILE writes the benchmarks page (docs/benchmarks.md) from the run's report too:
the method, the conditions the figures were taken under (date, CPUs and load average, the
emulator's latency and answers, the CRDs installed, the operator's flags) and per scenario
a table of figure, value, aim and met. With --from, nothing runs: the page is rendered from
a results file an earlier run wrote, as make generate does from the committed one:

  aztenant-lab bench --out bench-results.json --markdown docs/benchmarks.md    (make bench)
  aztenant-lab bench --from bench-results.json --markdown docs/benchmarks.md   (no run)`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.from != "" {
				return renderBench(cmd, o)
			}
			return runBench(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "bench-results.json", "file the JSON report is written to")
	cmd.Flags().StringVar(&o.dir, "dir", "", "folder for the processes' logs and data (default: a temporary folder, removed unless --keep)")
	cmd.Flags().BoolVar(&o.quick, "quick", false, "run every scenario at a small size (seconds, not minutes): tests the runner, not the aims")
	cmd.Flags().BoolVar(&o.keep, "keep", false, "keep the logs and data folder")
	cmd.Flags().StringVar(&o.markdown, "markdown", "", "also write the benchmarks page (Markdown) to this file")
	cmd.Flags().StringVar(&o.from, "from", "", "run nothing: render --markdown from this results file (one --out wrote)")
	cmd.Flags().StringVar(&o.scenario, "scenario", "all", "scenarios to run: all, stack (converge, steady, ceiling, throttled, idle-10k, fairness), steady (converge and steady), footprint, or shards (1, 2 and 4 sharded replicas, only 4 with --quick; not part of all)")
	return cmd
}

// runFlags are the flags of a run, which --from (no run) refuses.
var runFlags = []string{"out", "dir", "quick", "keep", "scenario"}

// renderBench writes the page of an existing results file.
func renderBench(cmd *cobra.Command, o benchOptions) error {
	if o.markdown == "" {
		return fmt.Errorf("--from %s renders a page: give it --markdown FILE", o.from)
	}
	for _, f := range runFlags {
		if cmd.Flags().Changed(f) {
			return fmt.Errorf("--%s is a flag of a run; --from renders %s without running", f, o.from)
		}
	}
	rep, err := bench.ReadReport(o.from)
	if err != nil {
		return err
	}
	if err := bench.WriteMarkdownFile(o.markdown, rep, filepath.Base(o.from)); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s written from %s\n", o.markdown, o.from)
	return nil
}

func runBench(ctx context.Context, out, progress io.Writer, o benchOptions) error {
	var stack, footprint, shards bool
	last := "" // the last stack scenario run (all of them when "")
	switch o.scenario {
	case "", "all":
		stack, footprint = true, true
	case "stack":
		stack = true
	case bench.ScenarioSteady:
		stack, last = true, bench.ScenarioSteady
	case scenarioFootprint:
		footprint = true
	case bench.ScenarioShards:
		shards = true
	default:
		return fmt.Errorf("--scenario %q: want all, stack, steady, footprint or shards", o.scenario)
	}
	if o.markdown != "" {
		// Not after minutes of a run.
		if _, err := os.Stat(filepath.Dir(o.markdown)); err != nil {
			return fmt.Errorf("--markdown %s: %w", o.markdown, err)
		}
	}
	dir := o.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "aztenant-bench-")
		if err != nil {
			return err
		}
		dir = tmp
		if !o.keep {
			defer func() {
				// Keep the logs of a failed run.
				if dir != "" {
					os.RemoveAll(dir)
				}
			}()
		}
	}
	cfg := bench.FullConfig()
	if o.quick {
		cfg = bench.QuickConfig()
	}
	rep := &bench.Report{Started: time.Now(), Quick: o.quick, Config: cfg, Machine: bench.NewMachine()}
	var err error
	if stack {
		rep, err = bench.RunUntil(ctx, filepath.Clean(dir), cfg, o.quick, progress, last)
	}
	if shards {
		rep, err = bench.RunShards(ctx, filepath.Join(filepath.Clean(dir), bench.ScenarioShards), cfg, o.quick, progress)
	}
	if footprint && err == nil {
		// After the stack stopped: nothing else of ours runs meanwhile.
		fmt.Fprintf(progress, "%s  scenario %s\n", time.Now().Format("15:04:05"), scenarioFootprint)
		rows, ferr := runFootprint(ctx, filepath.Join(filepath.Clean(dir), scenarioFootprint), o.quick, progress)
		rep.Rows = append(rep.Rows, rows...)
		if ferr != nil {
			rep.Failures = append(rep.Failures, scenarioFootprint+": "+ferr.Error())
			err = fmt.Errorf("%s: %w", scenarioFootprint, ferr)
		}
		rep.Seconds = time.Since(rep.Started).Seconds()
		rep.Machine.LoadAvgAfter = bench.LoadAvg()
	}
	if err != nil {
		fmt.Fprintf(progress, "logs kept in %s\n", dir)
		dir = ""
	}
	fmt.Fprintln(out)
	if werr := rep.WriteTable(out); werr != nil && err == nil {
		err = werr
	}
	if werr := rep.WriteJSON(o.out); werr != nil && err == nil {
		err = werr
	}
	if err == nil {
		fmt.Fprintf(out, "JSON written to %s\n", o.out)
	}
	// The page of a failed run too, as its JSON: it lists the failures.
	if o.markdown != "" {
		if werr := bench.WriteMarkdownFile(o.markdown, rep, filepath.Base(o.out)); werr != nil && err == nil {
			err = werr
		} else if werr == nil {
			fmt.Fprintf(out, "Markdown written to %s\n", o.markdown)
		}
	}
	return err
}
