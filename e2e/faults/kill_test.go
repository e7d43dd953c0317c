package faults_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/lab/bench"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

const crashNS = "crash"

// unit is what one team deploys together: a resource group holding a
// storage account and a managed identity with a federated credential.
type unit struct {
	rg  *resourcesv1alpha1.ResourceGroup
	sa  *storagev1alpha1.StorageAccount
	uai *managedidentityv1alpha1.UserAssignedIdentity
	fic *managedidentityv1alpha1.FederatedIdentityCredential
}

func newUnit(issuer string, i int) *unit {
	rg := fmt.Sprintf("%s-u%02d", crashNS, i)
	return &unit{
		rg:  bench.ResourceGroup(crashNS, rg, map[string]string{"rev": "0"}),
		sa:  bench.StorageAccount(crashNS, fmt.Sprintf("crashsa%02d", i), rg),
		uai: bench.UserAssignedIdentity(crashNS, fmt.Sprintf("id%02d", i), rg),
		fic: bench.FederatedIdentityCredential(crashNS, fmt.Sprintf("fic%02d", i), fmt.Sprintf("id%02d", i), issuer, "system:serviceaccount:crash:app0"),
	}
}

func (u *unit) objects() []azurev1alpha1.Resource {
	return []azurev1alpha1.Resource{u.rg, u.sa, u.uai, u.fic}
}

func (u *unit) armIDs() []string {
	rg := bench.ResourceGroupID(u.rg.Name)
	uai := rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + u.uai.Name
	return []string{rg, rg + "/providers/Microsoft.Storage/storageAccounts/" + u.sa.Name, uai, uai + "/federatedIdentityCredentials/" + u.fic.Name}
}

// The operator is killed with SIGKILL 20 times at random moments while
// units are created, updated and deleted, and restarted each time. In the
// end every live object is Ready with its desired state in Azure, Azure holds
// exactly one resource per live object and none of the deleted ones, and
// every DELETE the emulator saw was for something that was asked to go.
// The seed is logged; FAULTS_SEED=<n> replays it.
func TestKillOperatorDuringCreateUpdateDelete(t *testing.T) {
	s := getStack(t)
	ctx := t.Context()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("FAULTS_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (FAULTS_SEED=%d replays the kill points)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	onboard(t, s, crashNS)
	since := lastSeq(t, s)

	const units, kills = 10, 20
	all := make([]*unit, units)
	for i := range all {
		all[i] = newUnit(s.CP.IssuerURL, i)
	}
	var created, deleted []*unit
	live := func() []*unit {
		return slices.DeleteFunc(slices.Clone(created), func(u *unit) bool { return slices.Contains(deleted, u) })
	}
	pid0 := s.Operator.Pid()
	for k := range kills {
		var action string
		switch {
		case k < 7: // create: every unit exists by the 7th kill
			n := units * (k + 1) / 7
			batch := all[len(created):n]
			for _, u := range batch {
				for _, o := range u.objects() {
					create(t, s, o)
				}
			}
			created = append(created, batch...)
			action = fmt.Sprintf("create %d units", len(batch))
		case k < 14: // update: a tag on the group and the account, the credential's subject
			u := live()[rng.IntN(len(live()))]
			rev := strconv.Itoa(k)
			update(t, s, u.rg, func() { u.rg.Spec.Tags = map[string]string{"rev": rev} })
			update(t, s, u.sa, func() { u.sa.Spec.Tags = map[string]string{"rev": rev} })
			update(t, s, u.fic, func() { u.fic.Spec.Subject = "system:serviceaccount:crash:app" + rev })
			action = "update " + u.rg.Name
		default: // delete a whole unit, children first in no particular order
			l := live()
			u := l[rng.IntN(len(l))]
			for _, o := range rng.Perm(4) {
				if err := s.Client.Delete(ctx, u.objects()[o]); err != nil && !apierrors.IsNotFound(err) {
					t.Fatal(err)
				}
			}
			deleted = append(deleted, u)
			action = "delete " + u.rg.Name
		}
		wait := time.Duration(rng.IntN(1500)) * time.Millisecond
		time.Sleep(wait)
		s.KillOperator()
		t.Logf("kill %2d: %s, killed %s later", k+1, action, wait)
		if err := s.StartOperator(ctx); err != nil {
			t.Fatalf("restart after kill %d: %v", k+1, err)
		}
	}
	if s.Operator.Pid() == pid0 {
		t.Fatal("the operator was never restarted")
	}

	// Converges: live objects Ready for their generation, deleted ones gone.
	var liveObjs []azurev1alpha1.Resource
	for _, u := range live() {
		liveObjs = append(liveObjs, u.objects()...)
	}
	waitAllReady(t, 3*time.Minute, liveObjs)
	testenv.Eventually(t, 2*time.Minute, "deleted objects gone from the API server", func() (bool, string) {
		var left []string
		for _, u := range deleted {
			for _, o := range u.objects() {
				if err := s.Client.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
					left = append(left, o.GetName())
				}
			}
		}
		return len(left) == 0, strings.Join(left, ", ")
	})

	// Azure holds exactly the live units, each with its desired state.
	inv, err := s.Emulator.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inAzure := map[string]bench.StoredResource{}
	tracked := []string{"microsoft.resources/resourcegroups", "microsoft.storage/storageaccounts",
		"microsoft.managedidentity/userassignedidentities", "microsoft.managedidentity/userassignedidentities/federatedidentitycredentials"}
	prefix := strings.ToLower(bench.ResourceGroupID(crashNS + "-"))
	for _, r := range inv {
		if strings.HasPrefix(strings.ToLower(r.ID), prefix) && slices.Contains(tracked, strings.ToLower(r.Type)) {
			inAzure[strings.ToLower(r.ID)] = r
		}
	}
	want := map[string]bool{}
	for _, u := range live() {
		for _, id := range u.armIDs() {
			want[strings.ToLower(id)] = true
			if _, ok := inAzure[strings.ToLower(id)]; !ok {
				t.Errorf("missing in Azure: %s", id)
			}
		}
		checkDesired(t, s, u)
	}
	for id := range inAzure {
		if !want[id] {
			t.Errorf("in Azure but not wanted (orphaned or duplicated): %s", id)
		}
	}
	if len(inAzure) != len(want) {
		t.Errorf("Azure holds %d resources of the units' types, want %d", len(inAzure), len(want))
	}

	// Nothing was deleted that was not asked for.
	asked := map[string]bool{}
	for _, u := range deleted {
		for _, id := range u.armIDs() {
			asked[strings.ToLower(id)] = true
		}
	}
	for _, e := range armCalls(t, s, since, crashNS) {
		if e.Method == "DELETE" && !asked[strings.ToLower(e.Path)] {
			t.Errorf("DELETE %s (%d) was never asked for", e.Path, e.Status)
		}
	}
}

// update re-reads obj, applies change and writes it, retrying conflicts with
// the operator's status writes.
func update(t *testing.T, s *bench.Stack, obj client.Object, change func()) {
	t.Helper()
	for range 10 {
		if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		change()
		err := s.Client.Update(t.Context(), obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatal(err)
		}
	}
	t.Fatalf("update %s: conflicts kept coming", obj.GetName())
}

// checkDesired compares a live unit's spec with Azure's state.
func checkDesired(t *testing.T, s *bench.Stack, u *unit) {
	t.Helper()
	ids := u.armIDs()
	for i, obj := range []client.Object{u.rg, u.sa} {
		if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		tags := u.rg.Spec.Tags
		if i == 1 {
			tags = u.sa.Spec.Tags
		}
		body, err := s.Emulator.Resource(t.Context(), ids[i])
		if err != nil {
			t.Errorf("%s: %v", ids[i], err)
			continue
		}
		got, _ := body["tags"].(map[string]any)
		for k, v := range tags {
			if got[k] != v {
				t.Errorf("%s: tag %s=%v in Azure, want %s", ids[i], k, got[k], v)
			}
		}
	}
	if err := s.Client.Get(t.Context(), client.ObjectKeyFromObject(u.fic), u.fic); err != nil {
		t.Fatal(err)
	}
	body, err := s.Emulator.Resource(t.Context(), ids[3])
	if err != nil {
		t.Errorf("%s: %v", ids[3], err)
		return
	}
	if props, _ := body["properties"].(map[string]any); props["subject"] != u.fic.Spec.Subject {
		t.Errorf("%s: subject %v in Azure, want %s", ids[3], props["subject"], u.fic.Spec.Subject)
	}
}
