package kinds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	containerregistryv1alpha1 "github.com/aztenant/aztenant/api/containerregistry/v1alpha1"
	documentdbv1alpha1 "github.com/aztenant/aztenant/api/documentdb/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	networkv1alpha1 "github.com/aztenant/aztenant/api/network/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	sqlv1alpha1 "github.com/aztenant/aztenant/api/sql/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// generatedSample is one sample manifest of examples/generated with its adapter.
type generatedSample struct {
	file string
	gk   schema.GroupKind
	kind reconcilers.Kind
	obj  azurev1alpha1.Resource
}

// samplesSubscription is the subscription the samples' ARM IDs name.
const samplesSubscription = "/subscriptions/00000000-0000-0000-0000-000000000000"

// intoTenant moves the resource groups a sample refers to into the test's
// tenant (its subscription; the group rg, or ns-dr for a second group), as a
// user adapts the samples: the Tenant guard holds every reference to the
// tenant's bounds. What else the samples name (the hub network, a network
// manager's scope: the samples' subscription) the test's Tenant shares.
func intoTenant(data []byte, ns, rg string) []byte {
	sub := "/subscriptions/" + stacktest.SubscriptionID
	groups := regexp.MustCompile(regexp.QuoteMeta(samplesSubscription) + `/resourceGroups/(sample-rg|dr-rg)\b`)
	return groups.ReplaceAllFunc(data, func(m []byte) []byte {
		if strings.HasSuffix(string(m), "/dr-rg") {
			return []byte(sub + "/resourceGroups/" + ns + "-dr")
		}
		return []byte(sub + "/resourceGroups/" + rg)
	})
}

// ownedBy is a sample's manifest with its owner sample-rg, the resource group the samples
// share, renamed rg (an extension kind's owner is a type of its own: it is renamed here, in
// the manifest, for every kind alike).
func ownedBy(t *testing.T, data []byte, rg string) []byte {
	t.Helper()
	var m map[string]any
	must(t, yaml.Unmarshal(data, &m))
	spec, _ := m["spec"].(map[string]any)
	owner, _ := spec["owner"].(map[string]any)
	if owner == nil || owner["name"] != "sample-rg" {
		return data
	}
	owner["name"] = rg
	out, err := yaml.Marshal(m)
	must(t, err)
	return out
}

// loadGeneratedSamples reads every sample into namespace ns, its top-level owners renamed
// to rg, in the order of kinds.Generated (parents first); the RoleAssignment sample grants
// principal (the namespace's own) a role.
func loadGeneratedSamples(t *testing.T, env *testenv.Env, ns, rg, principal string) []generatedSample {
	t.Helper()
	files, err := filepath.Glob("../../examples/generated/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	byGK := map[schema.GroupKind]reconcilers.Kind{}
	var order []schema.GroupKind
	for _, k := range kinds.Generated() {
		gvks, _, err := env.Scheme.ObjectKinds(k.New())
		must(t, err)
		byGK[gvks[0].GroupKind()] = k
		order = append(order, gvks[0].GroupKind())
	}
	var out []generatedSample
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		data = intoTenant(data, ns, rg)
		data = ownedBy(t, data, rg)
		var tm metav1.TypeMeta
		must(t, yaml.Unmarshal(data, &tm))
		gk := tm.GroupVersionKind().GroupKind()
		k := byGK[gk]
		if k == nil {
			t.Fatalf("%s: %s is not a generated kind", f, gk)
		}
		obj := k.New()
		must(t, yaml.UnmarshalStrict(data, obj))
		obj.SetNamespace(ns)
		if g, ok := obj.(*resourcesv1alpha1.ResourceGroup); ok {
			// The resource group sample (sample-rg, the other samples' owner) is a group
			// of its own here, named as the Tenant allows (<namespace>-*); the others
			// belong to rg.
			g.Name = ns + "-" + g.Name
		}
		if fic, ok := obj.(*managedidentityv1alpha1.FederatedIdentityCredential); ok {
			// The platform's default federation policy trusts only this cluster's issuer
			// and a ServiceAccount of the credential's own namespace.
			fic.Spec.Issuer = env.IssuerURL
			fic.Spec.Subject = "system:serviceaccount:" + ns + ":sample-app"
		}
		if ra, ok := obj.(*authorizationv1alpha1.RoleAssignment); ok {
			// Its principal is the namespace's own, which the lifecycle test lets grant
			// roles in rg, its scope.
			ra.Spec.PrincipalID = principal
		}
		out = append(out, generatedSample{file: f, gk: gk, kind: k, obj: obj})
	}
	if len(out) != len(order) {
		t.Fatalf("%d samples for %d generated kinds", len(out), len(order))
	}
	sort.SliceStable(out, func(i, j int) bool {
		return slices.Index(order, out[i].gk) < slices.Index(order, out[j].gk)
	})
	return out
}

// samplesEnv narrows the lifecycle test to some kinds' samples while one works on them:
// globs over group/Kind separated by commas (cdn.aztenant.io/*, */Afd*), case-insensitive.
// Their owners' samples come too, and the samples their specs name by reference (a web
// app's server farm). Unset: every sample.
const samplesEnv = "AZTENANT_SAMPLES"

// sampleNeeds is, per sample file, the samples it needs created with it in one namespace:
// its owner's, and those its spec names (by object name, or by Azure name at the end of
// an ARM ID). It errs on the side of more: a spec value equal to another sample's name
// counts.
func sampleNeeds(t *testing.T, all []generatedSample) map[string][]string {
	t.Helper()
	byName := map[string][]generatedSample{} // samples of several kinds may share a name ("default")
	for _, sm := range all {
		byName[sm.obj.GetName()] = append(byName[sm.obj.GetName()], sm)
	}
	needs := map[string][]string{}
	for _, sm := range all {
		var out []string
		if o := sm.obj.Owner(); o != nil && o.Name != "" {
			ownerKind := sm.kind.Facts().OwnerKind
			if ok, has := sm.obj.(interface{ OwnerGroupKind() schema.GroupKind }); has {
				ownerKind = ok.OwnerGroupKind()
			}
			for _, owner := range byName[o.Name] {
				if owner.gk == ownerKind {
					out = append(out, owner.file)
				}
			}
		}
		for _, name := range referencedNames(t, sm.obj) { // {kind, name}
			for _, ref := range byName[name] {
				out = append(out, ref.file)
			}
		}
		spec, err := json.Marshal(sm.obj) // and ARM IDs, by the Azure name they end in
		must(t, err)
		for _, other := range all {
			name, azure := other.obj.GetName(), other.obj.AzureName()
			if other.file != sm.file && (bytes.Contains(spec, []byte(`"`+name+`"`)) ||
				azure != "" && (bytes.Contains(spec, []byte("/"+azure+`"`)) || bytes.Contains(spec, []byte("/"+azure+"/")))) {
				out = append(out, other.file)
			}
		}
		slices.Sort(out)
		needs[sm.file] = slices.Compact(out)
	}
	return needs
}

// onlySamples keeps the samples whose kind a glob of globs (samplesEnv) matches, and the
// samples they need (sampleNeeds).
func onlySamples(t *testing.T, all []generatedSample, globs string) []generatedSample {
	t.Helper()
	if globs == "" {
		return all
	}
	needs := sampleNeeds(t, all)
	keep := map[string]bool{}
	var add func(file string)
	add = func(file string) {
		if keep[file] {
			return
		}
		keep[file] = true
		for _, n := range needs[file] {
			add(n)
		}
	}
	for _, sm := range all {
		for _, g := range strings.Split(globs, ",") {
			if ok, err := path.Match(strings.ToLower(strings.TrimSpace(g)), strings.ToLower(sm.gk.Group+"/"+sm.gk.Kind)); err != nil {
				t.Fatalf("%s=%q: %v", samplesEnv, globs, err)
			} else if ok {
				add(sm.file)
			}
		}
	}
	var out []generatedSample
	for _, sm := range all {
		if keep[sm.file] {
			out = append(out, sm)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s=%q selects no sample", samplesEnv, globs)
	}
	t.Logf("%s=%q: %d of %d samples (with their owners)", samplesEnv, globs, len(out), len(all))
	return out
}

// poll waits for cond, checking every 100ms for up to a minute.
func poll(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// pollFor is poll that reports instead of failing, so the caller can say why.
func pollFor(t *testing.T, cond func(ctx context.Context) (bool, error)) (bool, error) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, cond)
	return err == nil, err
}

func readyTrue(obj azurev1alpha1.Resource) bool {
	c := meta.FindStatusCondition(obj.AzureStatus().Conditions, "Ready")
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == obj.GetGeneration()
}

// lifecycleLane is the most samples that act as one principal (an Identity of the
// namespace, aztenant.io/identity) in the lifecycle test: each principal has its own
// ARM budget (armlimit: 25 reads and 10 writes a second, as ARM's), so with more samples
// the test has more principals, not longer syncs (issue 29, item 4).
const lifecycleLane = 40

// lifecycleSync is the lifecycle test's sync period: each sample is synced three times
// after Ready and three times after its portal edit is put back, so six periods of the
// test's time are spent waiting on syncs. Every sample is of a collection of its own, so
// each period reads Azure about once per sample (a listing, or a GET in observe), against
// its principal's read budget; a period that asks for more than maxSampleReads a second
// keeps the budget in debt, and a plan's previews wait behind every sync.
const lifecycleSync = 8 * time.Second

// maxSampleReads is the most reads a second the lifecycle test's syncs may ask of a
// principal's read budget (25 a second), leaving the rest to its plans and portal edits.
const maxSampleReads = 20

// Every generated kind, from its sample manifest, against Azure-like answers (issue 27,
// item 4: the emulator answers from Azure's examples, perturbed by Perturb with
// lifecycleSeed; lifecycle_answers_test.go): admitted by the API server, created in Azure
// (with its parents) through the SDK pipeline as its Identity's principal, Ready; then
// three syncs write nothing, reconcile-policy observe shows nothing to change and a plan
// of the unchanged sample says NoChange; a change of one of its properties made in "the
// portal" is put back at the next sync with exactly one PUT; deleting the object deletes
// the resource in Azure. A sample written again fails with its file, ARM type, the
// paths and the transforms Azure's answer took there.
func TestGeneratedKindsLifecycle(t *testing.T) {
	t.Parallel()
	const ns, rg = "gen", "gen-rg"
	cfg := stacktest.DefaultConfig()
	cfg.SyncPeriod = lifecycleSync
	if perSecond := float64(lifecycleLane) / lifecycleSync.Seconds(); perSecond > maxSampleReads {
		t.Fatalf("%d samples of a principal synced every %s read %.0f times a second, over %d: lengthen the sync period", lifecycleLane, lifecycleSync, perSecond, maxSampleReads)
	}
	cfg.Kinds = stacktest.EveryKind
	s := &stack{stacktest.NewTuned(t, cfg, azureLikeAnswers, ns)}
	ctx := t.Context()
	p := s.Emu.PerturbWrites()
	t.Logf("Azure-like answers: from Azure's examples, perturbed with seed %d (%s=perturb=<seed> for another) by %v", p.Seed, stacktest.AnswersEnv, p.Ops)

	// Private DNS zones live in the "global" location, and replicas (a registry's, an App
	// Configuration store's) in a second region; the platform team allows both, and shares
	// the hub network the peering sample peers with.
	var tenant tenancyv1alpha1.Tenant
	must(t, s.Client.Get(ctx, client.ObjectKey{Name: ns}, &tenant))
	base := tenant.DeepCopy() // a patch: the tenancy controller writes the Tenant's status meanwhile
	tenant.Spec.Locations = append(tenant.Spec.Locations, "global", "northeurope")
	// A network manager's scope is a whole subscription: the platform team
	// shares another one, the samples' (the hub's too), never the tenant's
	// own, which would share every resource group in it.
	tenant.Spec.SharedResources = append(tenant.Spec.SharedResources, tenancyv1alpha1.SharedResource{ARMID: samplesSubscription})
	must(t, s.Client.Patch(ctx, &tenant, client.MergeFrom(base)))

	group := resourceGroup(ns, rg, nil, nil)
	s.Create(t, group)
	// The RoleAssignment sample grants the namespace's principal Reader on the group, and
	// the RoleDefinition sample defines a role there: the platform team lets it
	// (it is only Contributor otherwise).
	s.WaitReady(t, group, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
		PrincipalID: s.Principal[ns], Role: "User Access Administrator", Scope: rgID(rg),
	}}}))
	// The samples' administrator passwords come from this Secret.
	password := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sample-admin-password"},
		StringData: map[string]string{"password": "first-Passw0rd!"}}
	must(t, s.Client.Create(ctx, password))
	samples := onlySamples(t, loadGeneratedSamples(t, s.Env, ns, rg, s.Principal[ns]), os.Getenv(samplesEnv))
	// The samples act as lifecycleLane-sized lanes of principals: Identities of the
	// namespace, each federated with its provisioner account, Contributor on the
	// subscription and, for the RoleAssignment and RoleDefinition samples, allowed to
	// grant and define roles in rg.
	lanes := (len(samples) + lifecycleLane - 1) / lifecycleLane
	principalOf := map[string]string{} // sample file: the principal it acts as
	for i := range lanes {
		name := fmt.Sprintf("lane-%02d", i)
		principal := s.AddIdentity(t, ns, name)
		must(t, s.Emu.Seed(emulator.Seed{RoleAssignments: []emulator.RoleAssignment{{
			PrincipalID: principal, Role: "User Access Administrator", Scope: rgID(rg),
		}}}))
		for j := i; j < len(samples); j += lanes {
			a := samples[j].obj.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a[identity.AnnotationIdentity] = name
			samples[j].obj.SetAnnotations(a)
			principalOf[samples[j].file] = principal
		}
	}
	t.Logf("%d samples acting as %d principals (Identities), synced every %s", len(samples), lanes, cfg.SyncPeriod)
	// Every owner is a sample (the AKS cluster and the PostgreSQL server, hand-written
	// once, are generated samples too) or the resource group.
	names := map[string]bool{rg: true}
	for _, sm := range samples {
		names[sm.obj.GetName()] = true
	}
	for _, sm := range samples {
		if o := sm.obj.Owner(); o != nil && o.Name != "" && !names[o.Name] {
			t.Fatalf("%s: its owner %s is neither a sample nor created here", sm.file, o.Name)
		}
	}
	for _, sm := range samples {
		if err := s.Client.Create(ctx, sm.obj); err != nil {
			t.Errorf("%s not admitted: %v", sm.file, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// The audit position at which each sample was first seen Ready: it writes nothing
	// from there on until its spec, its Secret or Azure changes.
	readyAt := map[string]uint64{}
	for _, sm := range samples {
		timeout := 2 * time.Minute // a busy machine: only a failure waits that long
		if t.Failed() {
			timeout = 20 * time.Second // the others have had most of their minute meanwhile
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(sm.obj), sm.obj); err != nil {
				return false, err
			}
			return readyTrue(sm.obj), nil
		}); err != nil {
			// Every sample not Ready is named, then the test stops.
			t.Errorf("%s Ready: %v; its Ready condition: %+v", sm.file, err, meta.FindStatusCondition(sm.obj.AzureStatus().Conditions, "Ready"))
			continue
		}
		readyAt[sm.file] = auditNow(s)
	}
	if t.Failed() {
		t.FailNow()
	}
	calls := callsSince(t, s, 0)
	for _, sm := range samples {
		id := sm.obj.AzureStatus().ID
		typ := sm.kind.Facts().ResourceType
		where := "/providers/" + typ[:strings.Index(typ, "/")]
		if strings.EqualFold(typ, "Microsoft.Resources/resourceGroups") {
			where = "/resourceGroups/" // a subscription's child, not a provider's resource
		}
		name := sm.obj.AzureName()
		if armID := sm.kind.Hooks().ARMID; name == "" && armID != nil {
			// Named with a GUID the adapter derives from the object (api/kinds.yaml, name.uuid),
			// under its scope.
			if i := strings.LastIndex(strings.ToLower(id), strings.ToLower(where)); i > 0 && strings.EqualFold(armID(sm.obj, id[:i]), id) {
				name = id[strings.LastIndex(id, "/")+1:]
			}
		}
		if name == "" || !strings.Contains(strings.ToLower(id), strings.ToLower(where)) ||
			!strings.HasSuffix(strings.ToLower(id), "/"+strings.ToLower(name)) {
			t.Errorf("%s: status.id %q is not a %s named %s", sm.file, id, typ, sm.obj.AzureName())
		}
		if put, ok := calls.lastPut(id); !ok || put.PrincipalID != principalOf[sm.file] {
			t.Errorf("%s: not written as its Identity's principal %s: %+v", sm.file, principalOf[sm.file], put)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Steady on Azure's answers: every sample is read (synced) three more times and
	// written not once since it was Ready; a plan of the unchanged samples says NoChange
	// for each, and reconcile-policy observe shows nothing to change; still no write.
	steadyStart := time.Now()
	steady := map[string]uint64{}
	now := auditNow(s)
	for _, sm := range samples {
		steady[sm.file] = now
	}
	waitSynced(t, s, samples, steady, 3, "three syncs after Ready")
	calls = callsSince(t, s, slices.Min(mapValues(readyAt)))
	reported := map[string]bool{}
	writtenAgain := func(what string) {
		t.Helper()
		n, puts := 0, 0
		for _, sm := range samples {
			if w := calls.writes(sm.obj.AzureStatus().ID, readyAt[sm.file]); w > 0 {
				n, puts = n+1, puts+w
				if !reported[sm.file] {
					reported[sm.file] = true
					t.Errorf("%s: written %d time(s) after Ready: %s", what, w, whyWritten(t, s, sm, nil))
				}
			}
		}
		t.Logf("%s: %d of %d samples written after Ready (%d PUTs)", what, n, len(samples), puts)
	}
	writtenAgain("three syncs after Ready")
	// The plan first: its previews read Azure one object after another, with the
	// namespace's read budget (armlimit: 25 reads/s), which observe (a GET of every
	// object each period, no listings) leaves in debt for a while.
	planAll(t, s, ns, samples)
	observeAll(t, s, ns, samples)
	calls = callsSince(t, s, slices.Min(mapValues(readyAt)))
	writtenAgain("after plan and observe")
	t.Logf("steady, plan and observe of %d samples: %s", len(samples), time.Since(steadyStart).Round(time.Second))

	// The link names its virtual network by object; Azure got the network's ARM ID (what
	// the operator sent: Azure's answer may spell it otherwise).
	byFile := map[string]azurev1alpha1.Resource{}
	for _, sm := range samples {
		byFile[strings.TrimPrefix(sm.file, "../../examples/generated/")] = sm.obj
	}
	// The checks of particular samples run when AZTENANT_SAMPLES selects them (all do unset).
	selected := func(files ...string) bool {
		for _, f := range files {
			if byFile[f] == nil {
				return false
			}
		}
		return true
	}
	if selected("network/privatednszonesvirtualnetworklink.yaml", "network/virtualnetwork.yaml") {
		link, vnet := byFile["network/privatednszonesvirtualnetworklink.yaml"], byFile["network/virtualnetwork.yaml"]
		if got := lookup(s.SentBody(t, link.AzureStatus().ID), []string{"properties", "virtualNetwork", "id"}); got != vnet.AzureStatus().ID {
			t.Errorf("the link's virtualNetwork.id sent to Azure is %v, want the VirtualNetwork's ID %s", got, vnet.AzureStatus().ID)
		}
	}

	// The private endpoint names its target by an object of another group, where ARM
	// holds a string ID (privateLinkServiceReference -> privateLinkServiceId).
	if selected("network/privateendpoint.yaml", "keyvault/vault.yaml") {
		pe, vault := byFile["network/privateendpoint.yaml"], byFile["keyvault/vault.yaml"]
		conns, _ := lookup(s.SentBody(t, pe.AzureStatus().ID), []string{"properties", "privateLinkServiceConnections"}).([]any)
		if len(conns) != 1 {
			t.Fatalf("the private endpoint sent Azure %d connections, want 1", len(conns))
		}
		if got := lookup(conns[0].(map[string]any), []string{"properties", "privateLinkServiceId"}); got != vault.AzureStatus().ID {
			t.Errorf("the private endpoint's privateLinkServiceId sent to Azure is %v, want the Vault's ID %s", got, vault.AzureStatus().ID)
		}
	}

	// An agent pool of its own kind is one of the cluster's pools; the cluster, which
	// names only its own, does not count it as drift (it stays Ready).
	if selected("containerservice/managedclustersagentpool.yaml", "containerservice/managedcluster.yaml") {
		pool, aks := byFile["containerservice/managedclustersagentpool.yaml"], byFile["containerservice/managedcluster.yaml"]
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(aks), aks))
		var listed []string
		for _, p := range lookup(s.AzureBody(t, aks.AzureStatus().ID), []string{"properties", "agentPoolProfiles"}).([]any) {
			listed = append(listed, p.(map[string]any)["name"].(string))
		}
		if !slices.Contains(listed, pool.AzureName()) {
			t.Errorf("the cluster in Azure lists pools %v, not %s", listed, pool.AzureName())
		}
		if !readyTrue(aks) {
			t.Errorf("the cluster is not Ready with a pool of its own kind: %+v", aks.AzureStatus().Conditions)
		}
		// Two syncs of the cluster (each reads it) write nothing: the pool is not drift.
		aksPath := strings.ToLower(aks.AzureStatus().ID[strings.Index(aks.AzureStatus().ID, "/providers/"):])
		count := func(method string) (n int) {
			for _, e := range s.ARMCalls(aksPath) {
				if e.Method == method {
					n++
				}
			}
			return n
		}
		aksPuts, aksReads := count("PUT"), s.Reads(aks.AzureStatus().ID)
		poll(t, "two syncs of the cluster", func(context.Context) (bool, error) { return s.Reads(aks.AzureStatus().ID) >= aksReads+2, nil })
		if n := count("PUT"); n != aksPuts {
			t.Errorf("the cluster was written %d times more after a pool of its own kind was added", n-aksPuts)
		}
	}

	// The Cosmos DB account's keys, read with listKeys, reach the Secret its CEL export names.
	if selected("documentdb/databaseaccount.yaml") {
		var keys corev1.Secret
		must(t, s.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sample-cosmos-keys"}, &keys))
		if k := string(keys.Data["primaryKey"]); len(k) < 32 || k == "example" {
			t.Errorf("the Cosmos DB account's exported primaryKey is %q", k)
		}
	}

	// The registry runs as the namespace's UserAssignedIdentity, named in its spec: Azure got
	// the identity's ARM ID as the key of identity.userAssignedIdentities, and the status
	// reports the identity's principal from the map Azure answers.
	if selected("containerregistry/registry.yaml", "managedidentity/userassignedidentity.yaml") {
		registry := byFile["containerregistry/registry.yaml"].(*containerregistryv1alpha1.Registry)
		uai := byFile["managedidentity/userassignedidentity.yaml"] // kindgen's emit.SampleIdentity, the identity samples run as
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(uai), uai))
		uais, _ := lookup(s.SentBody(t, registry.Status.ID), []string{"identity", "userAssignedIdentities"}).(map[string]any)
		if _, ok := uais[uai.AzureStatus().ID]; !ok || len(uais) != 1 {
			t.Errorf("the registry's userAssignedIdentities sent to Azure are %v, want only the identity %s", uais, uai.AzureStatus().ID)
		}
		if id := registry.Status.Identity; id == nil || id.UserAssignedIdentities[uai.AzureStatus().ID].PrincipalID == "" {
			t.Errorf("the registry's status does not report its identity's principal: %+v", id)
		}
	}

	// A write-only password: sent from its Secret, never returned by Azure, and sent
	// again when the Secret changes.
	if selected("sql/server.yaml") {
		sqlServer := byFile["sql/server.yaml"]
		sent := s.SentBody(t, sqlServer.AzureStatus().ID)
		if _, ok := lookup(sent, []string{"properties", "administratorLogin"}).(string); !ok {
			t.Fatalf("the SQL server was sent to Azure with no administratorLogin")
		}
		if got := lookup(sent, []string{"properties", "administratorLoginPassword"}); got != "first-Passw0rd!" {
			t.Errorf("the SQL server was not sent its password from the Secret")
		}
		if got := lookup(s.AzureBody(t, sqlServer.AzureStatus().ID), []string{"properties", "administratorLoginPassword"}); got != nil {
			t.Errorf("Azure returned the SQL server's write-only password")
		}
		serverPath := strings.ToLower(sqlServer.AzureStatus().ID[strings.Index(sqlServer.AzureStatus().ID, "/providers/"):])
		putsBefore := strings.Count(stacktest.Methods(s.ARMCalls(serverPath)), "PUT")
		// The write-only digest of every sample reading the Secret, before its rotation.
		readsPassword := func(sm generatedSample) bool {
			if refs := sm.kind.Hooks().References; refs != nil {
				return slices.Contains(refs(sm.obj), reconcilers.Reference{Kind: reconcilers.ReferenceSecret, Name: password.Name})
			}
			return false
		}
		hashBefore := map[string]string{}
		for _, sm := range samples {
			if readsPassword(sm) {
				obj := sm.kind.New()
				must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(sm.obj), obj))
				if h := obj.AzureStatus().WriteOnlyHash; h != "" { // a digested (write-only) password
					hashBefore[sm.file] = h
				}
			}
		}
		must(t, s.Client.Patch(ctx, password, client.RawPatch(types.MergePatchType, []byte(`{"stringData":{"password":"second-Passw0rd!"}}`))))
		poll(t, "the rotated password written to the SQL server", func(context.Context) (bool, error) {
			return strings.Count(stacktest.Methods(s.ARMCalls(serverPath)), "PUT") > putsBefore, nil
		})
		// The rotation's writes (every sample reading that Secret) finish and their answers are
		// recorded before the portal edits: an edit made while a write is in flight is, to the
		// operator, Azure's answer to that write (status.azureKeeps), and is kept until the spec
		// changes there (docs/design/azure-answers.md, "an edit during a write").
		if pending, err := pollSamples(t, samples, time.Minute, func(sm generatedSample) (bool, error) {
			obj := sm.kind.New()
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(sm.obj), obj); err != nil {
				return false, err
			}
			st := obj.AzureStatus()
			if before, ok := hashBefore[sm.file]; ok && st.WriteOnlyHash == before {
				return false, nil // not yet written with the new password
			}
			return st.ResumeToken == "" && (st.AzureKeeps == nil || st.AzureKeeps.Written == ""), nil
		}); err != nil {
			t.Fatalf("the writes of the rotated password finished and answered: %v: %v", pending, err)
		}
	}

	// Every sample is changed in "the portal" at once, then each change is awaited: the
	// syncs that put them back run side by side, as they would in a busy namespace.
	type portalEdit struct {
		sm         generatedSample
		path       []string
		want       any
		changedErr string
		skip       string // why the sample has no portal edit to put back
	}
	var edits []portalEdit
	// Each edit is put back to Azure's answer to the spec there (the value before the
	// edit: with Azure-like answers, not always the spec's own), with one PUT.
	editedAt := auditNow(s)
	for _, sm := range samples {
		var resolved map[string]string
		if resolve := sm.kind.Hooks().Resolve; resolve != nil {
			var err error
			resolved, err = resolve(ctx, s.Client, sm.obj)
			must(t, err)
		}
		desired, err := sm.kind.Desired(sm.obj, resolved)
		must(t, err)
		// Write-only values (a password) are never compared, so never put back: not changed.
		for _, p := range sm.kind.Facts().WriteOnly {
			parts := strings.Split(p, ".")
			if m, ok := lookup(desired, parts[:len(parts)-1]).(map[string]any); ok {
				delete(m, parts[len(parts)-1])
			} else if len(parts) == 1 {
				delete(desired, p)
			}
		}
		// A change at a path Azure answers: one it never shows (a value it drops) is no
		// drift anyone could see, in the portal or here.
		answer := s.AzureBody(t, sm.obj.AzureStatus().ID)
		path, _, changed := portalChange(answeredOnly(desired, answer))
		e := portalEdit{sm: sm, path: path}
		if path != nil {
			e.want = lookup(answer, path)
		}
		switch {
		case path == nil && desired["properties"] == nil && desired["tags"] == nil:
			// Nothing writable (an Event Grid domain topic is its name): no drift to revert.
			e.skip = "the kind has no writable property to change"
		case path == nil && changeable(desired):
			// Azure answers none of the spec's values (its only one dropped): an edit
			// there is seen by no one, so it is never drift.
			e.skip = fmt.Sprintf("Azure's answer has none of the spec's values %v (Perturb's transforms: %s)", desired["properties"], perturbedAt(t, s, sm))
		case path == nil:
			e.changedErr = fmt.Sprintf("nothing to change in %v", desired)
		default:
			patch, _ := json.Marshal(nested(path, changed))
			after, err := s.Emu.PatchResource(ctx, sm.obj.AzureStatus().ID, patch)
			if err != nil {
				e.changedErr = err.Error()
				break
			}
			var body map[string]any
			must(t, json.Unmarshal(after, &body))
			if got := lookup(body, path); !within(changed, got) {
				e.changedErr = fmt.Sprintf("the portal change did not take: %s = %v", strings.Join(path, "."), got)
			}
		}
		edits = append(edits, e)
	}
	skipped := 0
	for _, e := range edits {
		if e.skip != "" {
			skipped++
		}
	}
	t.Logf("portal edits: %d of %d samples edited (the others: nothing writable, or Azure answers none of the spec's values)", len(edits)-skipped, len(edits))
	for _, e := range edits {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(e.sm.file, "../../examples/generated/"), ".yaml")+"/portal-change-reverted", func(t *testing.T) {
			if e.skip != "" {
				t.Skip(e.skip)
			}
			if e.changedErr != "" {
				t.Fatal(e.changedErr)
			}
			id := e.sm.obj.AzureStatus().ID
			put := func(context.Context) (bool, error) {
				got := lookup(s.AzureBody(t, id), e.path)
				return fmt.Sprint(got) == fmt.Sprint(e.want), nil
			}
			if ok, _ := pollFor(t, put); !ok {
				obj := e.sm.kind.New()
				_ = s.Client.Get(ctx, client.ObjectKeyFromObject(e.sm.obj), obj)
				keeps, _ := json.Marshal(obj.AzureStatus().AzureKeeps)
				t.Fatalf("%s: %s not put back to %v: Azure has %v; the object's status: %+v; status.azureKeeps %s", e.sm.file, strings.Join(e.path, "."), e.want,
					lookup(s.AzureBody(t, id), e.path), obj.AzureStatus(), keeps)
			}
		})
	}
	// Exactly one PUT each: three more syncs after the last edit was put back write
	// nothing more.
	putBack := map[string]uint64{}
	now = auditNow(s)
	var edited []generatedSample
	for _, e := range edits {
		if e.changedErr == "" && e.skip == "" {
			putBack[e.sm.file] = now
			edited = append(edited, e.sm)
		}
	}
	waitSynced(t, s, edited, putBack, 3, "three syncs after the portal edits were put back")
	calls = callsSince(t, s, editedAt)
	for _, e := range edits {
		if e.changedErr != "" || e.skip != "" {
			continue
		}
		t.Run(strings.TrimSuffix(strings.TrimPrefix(e.sm.file, "../../examples/generated/"), ".yaml")+"/portal-change-written-once", func(t *testing.T) {
			if n := calls.writes(e.sm.obj.AzureStatus().ID, editedAt); n != 1 {
				t.Errorf("a portal edit at %s: %d PUTs, want exactly 1: %s", strings.Join(e.path, "."), n, whyWritten(t, s, e.sm, nil))
			}
		})
	}

	// Every sample is deleted at once, as a namespace's objects are: an object deleted with
	// its owner calls nothing (ARM deletes its resource with the owner's), the others delete
	// their own.
	isSample := map[string]bool{}
	for _, sm := range samples {
		isSample[sm.obj.GetName()] = true
	}
	for i := len(samples) - 1; i >= 0; i-- {
		must(t, s.Client.Delete(ctx, samples[i].obj))
	}
	var goneLater []generatedSample
	for i := len(samples) - 1; i >= 0; i-- {
		sm := samples[i]
		// A network's DELETE waits for its users' (ARM refuses it while a
		// subnet is in use), each retried with backoff: minutes on a busy
		// machine.
		var last *metav1.Condition
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			cur := sm.obj.DeepCopyObject().(azurev1alpha1.Resource)
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(sm.obj), cur); apierrors.IsNotFound(err) {
				return true, nil
			} else if err != nil {
				return false, err
			}
			last = meta.FindStatusCondition(cur.AzureStatus().Conditions, "Ready")
			return false, nil
		}); err != nil {
			t.Fatalf("%s deleted: %v; its Ready condition: %+v", sm.file, err, last)
		}
		_, err := s.Emu.Resource(sm.obj.AzureStatus().ID)
		if sm.kind.Facts().WithParent {
			// Azure has no DELETE for it: it stays, to go with its parent (unless the
			// parent, a sample too, went with it).
			if err != nil && !isSample[sm.obj.Owner().Name] {
				t.Errorf("%s: made by Azure with its parent, it was deleted with its object: %v", sm.file, err)
			}
			continue
		}
		if err == nil {
			// Deleted with its owner, it goes when the owner's deletion (which may wait
			// for other resources to let go of it, as a network does) ends: looked at
			// once every object is gone.
			goneLater = append(goneLater, sm)
		}
	}
	for _, sm := range goneLater {
		poll(t, sm.file+" gone from Azure", func(context.Context) (bool, error) {
			_, err := s.Emu.Resource(sm.obj.AzureStatus().ID)
			return err != nil, nil
		})
	}
}

// portalChange picks a property the user declared and a different value for it: the
// first scalar under properties, else the first scalar found deeper (in a list, its first
// part), else a tag. The change is of the whole top-level property.
func portalChange(desired map[string]any) (path []string, want, changed any) {
	if props, ok := desired["properties"].(map[string]any); ok {
		keys := slices.Sorted(maps.Keys(props))
		for _, deep := range []bool{false, true} {
			for _, k := range keys {
				if _, scalar := mutated(props[k], false); scalar == deep {
					continue
				}
				if c, ok := mutated(props[k], true); ok {
					return []string{"properties", k}, props[k], c
				}
			}
		}
	}
	if tags, ok := desired["tags"].(map[string]any); ok {
		for k, v := range tags {
			return []string{"tags", k}, v, "portal"
		}
	}
	return nil, nil, nil
}

// changeable says whether portalChange finds a value of desired to change.
func changeable(desired map[string]any) bool {
	path, _, _ := portalChange(desired)
	return path != nil
}

// perturbedAt lists the transforms Perturb answered the sample's resource with.
func perturbedAt(t *testing.T, s *stack, sm generatedSample) string {
	t.Helper()
	ts, err := s.Emu.Perturbations(sm.obj.AzureStatus().ID)
	if err != nil {
		return err.Error()
	}
	out := make([]string, len(ts))
	for i, tr := range ts {
		out[i] = tr.String()
	}
	return strings.Join(out, "; ")
}

// answeredOnly is desired's properties and tags that Azure's answer has too.
func answeredOnly(desired, answer map[string]any) map[string]any {
	out := map[string]any{}
	for _, top := range []string{"properties", "tags"} {
		d, _ := desired[top].(map[string]any)
		a, _ := answer[top].(map[string]any)
		if d == nil {
			continue
		}
		kept := map[string]any{}
		for k, v := range d {
			if _, ok := a[k]; ok {
				kept[k] = v
			}
		}
		out[top] = kept
	}
	return out
}

// within says whether Azure's value got holds want: each of want's keys with its value
// (Azure may answer more keys: defaults it adds), lists element by element.
func within(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !within(v, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !within(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(want) == fmt.Sprint(got)
}

// mutated is a copy of v with its first scalar changed; with deep false, only a scalar v
// itself is.
func mutated(v any, deep bool) (any, bool) {
	switch t := v.(type) {
	case string:
		return t + "-portal", true
	case bool:
		return !t, true
	case float64:
		return t + 1, true
	case map[string]any:
		if !deep {
			return nil, false
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if c, ok := mutated(t[k], true); ok {
				out := maps.Clone(t)
				out[k] = c
				return out, true
			}
		}
	case []any:
		if deep && len(t) > 0 {
			if c, ok := mutated(t[0], true); ok {
				out := append([]any{}, t...)
				out[0] = c
				return out, true
			}
		}
	}
	return nil, false
}

func nested(path []string, v any) map[string]any {
	if len(path) == 1 {
		return map[string]any{path[0]: v}
	}
	return map[string]any{path[0]: nested(path[1:], v)}
}

func lookup(m map[string]any, path []string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// kubectl explain shows the SDK's field docs for a generated kind, through the CRD's
// OpenAPI schema the API server publishes.
func TestGeneratedKindExplain(t *testing.T) {
	env := testenv.Get(t)
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	poll(t, "kubectl explain", func(ctx context.Context) (bool, error) {
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "kubectl"), "--kubeconfig="+env.KubeconfigPath,
			"explain", "virtualnetworkssubnets.spec.addressPrefix", "--api-version=network.aztenant.io/v1alpha1")
		out, err = cmd.CombinedOutput()
		return err == nil, nil
	})
	// armnetwork's SubnetPropertiesFormat.AddressPrefix doc.
	if !bytes.Contains(out, []byte("The address prefix for the subnet.")) {
		t.Errorf("kubectl explain does not show the SDK's doc:\n%s", out)
	}
}

// A reference to an object that does not exist yet waits with a reason naming it, and
// resolves to the object's ARM ID once it is created in Azure.
func TestGeneratedReferenceWaits(t *testing.T) {
	t.Parallel()
	const ns, rg = "genref", "genref-rg"
	s := newStackOf(t, "network.aztenant.io", ns)
	s.Create(t, resourceGroup(ns, rg, nil, nil))
	owner := &azurev1alpha1.OwnerReference{Name: rg}
	vnet := &networkv1alpha1.VirtualNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "net"},
		Spec: networkv1alpha1.VirtualNetworkSpec{Owner: owner, Location: stacktest.Location,
			AddressSpace: &networkv1alpha1.VirtualNetworkAddressSpace{AddressPrefixes: []string{"10.0.0.0/16"}}}}
	subnet := &networkv1alpha1.VirtualNetworksSubnet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: networkv1alpha1.VirtualNetworksSubnetSpec{Owner: &azurev1alpha1.OwnerReference{Name: "net"}, AddressPrefix: "10.0.1.0/24",
			NetworkSecurityGroup: &networkv1alpha1.VirtualNetworksSubnetReference{
				Reference: azurev1alpha1.ResourceReference{Kind: "NetworkSecurityGroup", Name: "web-nsg"}}}}
	s.Create(t, vnet)
	s.Create(t, subnet)
	poll(t, "subnet waits for its NSG", func(ctx context.Context) (bool, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(subnet), subnet); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(subnet.Status.Conditions, "Ready")
		return c != nil && c.Reason == reconcilers.ReasonReferenceNotFound && strings.Contains(c.Message, "NetworkSecurityGroup web-nsg not found"), nil
	})

	nsg := &networkv1alpha1.NetworkSecurityGroup{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-nsg"},
		Spec: networkv1alpha1.NetworkSecurityGroupSpec{Owner: owner, Location: stacktest.Location}}
	s.Create(t, nsg)
	for _, obj := range []azurev1alpha1.Resource{nsg, subnet} {
		poll(t, obj.GetName()+" Ready", func(ctx context.Context) (bool, error) {
			if err := s.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return false, err
			}
			return readyTrue(obj), nil
		})
	}
	if got := lookup(s.AzureBody(t, subnet.Status.ID), []string{"properties", "networkSecurityGroup", "id"}); got != nsg.Status.ID {
		t.Errorf("subnet's networkSecurityGroup.id in Azure is %v, want the NSG's ID %s", got, nsg.Status.ID)
	}
}

// The API server refuses what Azure would: a Cosmos DB SQL database whose resource.id is
// not its name, and a SQL server whose password is a Secret key that does not exist waits
// with a message naming the Secret, never a value.
func TestGeneratedKindsRefuseBadInput(t *testing.T) {
	t.Parallel()
	const ns, rg = "genbad", "genbad-rg"
	s := newStackOf(t, "documentdb.aztenant.io;sql.aztenant.io", ns)
	ctx := t.Context()
	db := &documentdbv1alpha1.SqlDatabase{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orders"},
		Spec: documentdbv1alpha1.SqlDatabaseSpec{Owner: &azurev1alpha1.OwnerReference{Name: "cosmos"},
			Resource: documentdbv1alpha1.SqlDatabaseSQLDatabaseResource{ID: "invoices"}}}
	err := s.Client.Create(ctx, db)
	if err == nil || !strings.Contains(err.Error(), "spec.resource.id must be the resource's name") {
		t.Errorf("a SqlDatabase whose resource.id is not its name: %v", err)
	}

	s.Create(t, resourceGroup(ns, rg, nil, nil))
	server := &sqlv1alpha1.Server{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "genbad-sql"},
		Spec: sqlv1alpha1.ServerSpec{Owner: &azurev1alpha1.OwnerReference{Name: rg}, Location: stacktest.Location,
			AdministratorLogin:         "sqladmin",
			AdministratorLoginPassword: &azurev1alpha1.SecretKeyReference{Name: "sql-admin", Key: "password"}}}
	s.Create(t, server)
	poll(t, "the server waits for its password's Secret", func(ctx context.Context) (bool, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(server), server); err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(server.Status.Conditions, "Ready")
		return c != nil && c.Reason == reconcilers.ReasonReferenceNotFound && strings.Contains(c.Message, `Secret "sql-admin" does not exist`), nil
	})
	if calls := s.ARMCalls("/providers/microsoft.sql/servers/genbad-sql"); strings.Contains(stacktest.Methods(calls), "PUT") {
		t.Errorf("the server was written without its password: %s", stacktest.Methods(calls))
	}
	must(t, s.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sql-admin"},
		StringData: map[string]string{"password": "Passw0rd-for-test!"}}))
	poll(t, "the server Ready once its Secret exists", func(ctx context.Context) (bool, error) {
		if err := s.Client.Get(ctx, client.ObjectKeyFromObject(server), server); err != nil {
			return false, err
		}
		return readyTrue(server), nil
	})
}

// referencedNames are the names of the objects a sample's spec refers to ({kind, name}
// anywhere below spec, the shape of a reference by name).
func referencedNames(t *testing.T, obj azurev1alpha1.Resource) []string {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Spec any `json:"spec"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if kind, _ := x["kind"].(string); kind != "" {
				if name, _ := x["name"].(string); name != "" {
					out = append(out, name)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v.Spec)
	return out
}
