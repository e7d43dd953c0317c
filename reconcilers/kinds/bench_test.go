package kinds_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/operator"
	"github.com/aztenant/aztenant/reconcilers"
)

// BenchmarkConvergeResourceGroups creates 1,000 ResourceGroups across 10
// namespaces (10 identities) against the zero-latency emulator and waits until
// all are Ready, then lets one compressed sync period pass. It reports wall
// time, resources/s, ARM calls per resource by method, Entra exchanges,
// TokenRequests, process CPU seconds and peak RSS (operator, emulator and the
// API client share this process; the API server and etcd are separate).
//
//	make bench   (or: go test -run XXX -bench ConvergeResourceGroups -benchtime 1x ./reconcilers/kinds/)
func BenchmarkConvergeResourceGroups(b *testing.B) {
	const namespaces, perNamespace = 10, 100
	// Longer than convergence takes, so the create phase counts no resync.
	const sync = 30 * time.Second
	var nss []string
	for i := range namespaces {
		nss = append(nss, fmt.Sprintf("bench%d", i))
	}
	for b.Loop() {
		s := newStackWith(b, operator.Config{Settings: reconcilers.Settings{SyncPeriod: sync, PollInterval: 100 * time.Millisecond, Workers: 8}}, nss...)
		ctx := b.Context()
		before := s.Emu.Counters()
		cpu0 := cpuSeconds()
		start := time.Now()
		for _, ns := range nss {
			for i := range perNamespace {
				rg := resourceGroup(ns, fmt.Sprintf("%s-rg%03d", ns, i), nil, map[string]string{"bench": "1"})
				if err := s.Client.Create(ctx, rg); err != nil {
					b.Fatal(err)
				}
			}
		}
		total := namespaces * perNamespace
		for ready := 0; ready < total; {
			time.Sleep(100 * time.Millisecond)
			var list resourcesv1alpha1.ResourceGroupList
			if err := s.Client.List(ctx, &list); err != nil {
				b.Fatal(err)
			}
			ready = 0
			for i := range list.Items {
				if c := meta.FindStatusCondition(list.Items[i].Status.Conditions, "Ready"); c != nil && c.Status == "True" && list.Items[i].Namespace[:5] == "bench" {
					ready++
				}
			}
			if time.Since(start) > 5*time.Minute {
				b.Fatalf("only %d of %d Ready after 5m", ready, total)
			}
		}
		wall := time.Since(start)
		cpu := cpuSeconds() - cpu0
		created := s.Emu.Counters()

		// One compressed sync period: every resource is compared again.
		time.Sleep(sync + sync/10 + time.Second)
		after := s.Emu.Counters()

		n := float64(total)
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(n/wall.Seconds(), "resources/s")
		b.ReportMetric(delta(created, before, "arm GET")/n, "GETs/resource")
		b.ReportMetric(delta(created, before, "arm PUT")/n, "PUTs/resource")
		b.ReportMetric(float64(created.TokensIssued-before.TokensIssued), "entra-exchanges")
		b.ReportMetric(float64(s.Parts.Tokens.Requests()), "tokenrequests")
		b.ReportMetric(cpu, "cpu-s")
		b.ReportMetric(peakRSSMiB(), "peak-rss-MiB")
		b.ReportMetric(delta(after, created, "arm PUT"), "steady-PUTs")
		b.ReportMetric(delta(after, created, "arm GET")/n, "steady-GETs/resource")
	}
}

func delta(a, b emulator.Counters, key string) float64 {
	return float64(a.ByMethod[key] - b.ByMethod[key])
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func peakRSSMiB() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}

// BenchmarkSmallTenantBehindBacklog measures how long a tenant's single
// resource takes to become Ready while another tenant has 2,000 resource
// groups waiting, through the real operator wiring (per-tenant fair queue).
// Aim: under 2 s on the zero-latency emulator.
func BenchmarkSmallTenantBehindBacklog(b *testing.B) {
	const backlog = 2000
	for b.Loop() {
		s := newStackWith(b, operator.Config{Settings: reconcilers.Settings{SyncPeriod: time.Hour, PollInterval: 100 * time.Millisecond, Workers: 4}}, "big", "small")
		ctx := b.Context()
		// Queue the backlog first: create them all, then the small tenant's one.
		for i := range backlog {
			if err := s.Client.Create(ctx, resourceGroup("big", fmt.Sprintf("big-rg%04d", i), nil, nil)); err != nil {
				b.Fatal(err)
			}
		}
		small := resourceGroup("small", "small-app", nil, nil)
		start := time.Now()
		if err := s.Client.Create(ctx, small); err != nil {
			b.Fatal(err)
		}
		for {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(small), small); err != nil {
				b.Fatal(err)
			}
			if c := meta.FindStatusCondition(small.Status.Conditions, "Ready"); c != nil && c.Status == "True" {
				break
			}
			if time.Since(start) > 2*time.Minute {
				b.Fatal("the small tenant's resource group was not Ready within 2 minutes")
			}
			time.Sleep(20 * time.Millisecond)
		}
		latency := time.Since(start)
		var list resourcesv1alpha1.ResourceGroupList
		if err := s.Client.List(ctx, &list, client.InNamespace("big")); err != nil {
			b.Fatal(err)
		}
		readyBig := 0
		for i := range list.Items {
			if c := meta.FindStatusCondition(list.Items[i].Status.Conditions, "Ready"); c != nil && c.Status == "True" {
				readyBig++
			}
		}
		b.ReportMetric(latency.Seconds(), "small-ready-s")
		b.ReportMetric(float64(readyBig), "big-ready-meanwhile")
	}
}
