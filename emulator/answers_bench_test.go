package emulator_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

// wafPolicy is a web application firewall policy (a generated kind with a synchronous
// PUT) written so that the examples add many defaults: policy settings and a custom
// rule the smallest example names.
func wafPolicy() armresources.GenericResource {
	return armresources.GenericResource{Location: to.Ptr("westeurope"), Tags: map[string]*string{"n": to.Ptr("x")},
		Properties: map[string]any{
			"policySettings": map[string]any{},
			"customRules": []any{map[string]any{"name": "Rule1", "priority": 1, "ruleType": "MatchRule", "action": "Block",
				"matchConditions": []any{map[string]any{"operator": "IPMatch", "matchValues": []any{"10.0.0.0/24"},
					"matchVariables": []any{map[string]any{"variableName": "RemoteAddr"}}}}}},
			"managedRules": map[string]any{"managedRuleSets": []any{map[string]any{"ruleSetType": "OWASP", "ruleSetVersion": "3.2"}}},
		}}
}

// BenchmarkAnswersPut is BenchmarkSDKPut's load on a generated kind: echoed, answered
// from Azure's examples (about 13 defaults added per write here), and perturbed too.
func BenchmarkAnswersPut(b *testing.B) {
	for _, mode := range []struct {
		name     string
		examples bool
		perturb  *emulator.PerturbWrites
	}{{"echo", false, nil}, {"examples", true, nil}, {"examples+perturb", true, &emulator.PerturbWrites{Seed: 1}}} {
		b.Run(mode.name, func(b *testing.B) {
			f, res := benchClient(b, 10000)
			f.emu.SetAnswerFromExamples(mode.examples)
			if err := f.emu.SetPerturbWrites(mode.perturb); err != nil {
				b.Fatal(err)
			}
			body := wafPolicy()
			ctx := context.Background()
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(benchParallelism)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					id := fmt.Sprintf("%sbench/providers/Microsoft.Network/ApplicationGatewayWebApplicationFirewallPolicies/waf%d", rgScope, n.Add(1)%100)
					p, err := res.BeginCreateOrUpdateByID(ctx, id, "2025-05-01", body, nil)
					if err != nil {
						b.Error(err)
						return
					}
					if _, err := p.PollUntilDone(ctx, fastPoll); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
		})
	}
}
