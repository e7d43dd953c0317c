package reconcilers_test

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	keyvaultv1alpha1 "github.com/aztenant/aztenant/api/keyvault/v1alpha1"
	planv1alpha1 "github.com/aztenant/aztenant/api/plan/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/reconcilertest"
	"github.com/aztenant/aztenant/reconcilers"
	"github.com/aztenant/aztenant/reconcilers/kinds"
)

// These tests run a Key Vault (a generated kind) against the emulator, with
// Azure answering its writes its own way (reconcilertest.Answers) in each
// class of issue 27: a value forced, a value never returned, a string
// rewritten, an element added to a list, an enum answered as an integer.

const (
	rgID    = "/subscriptions/" + reconcilertest.SubscriptionID + "/resourceGroups/team-rg"
	vaultID = rgID + "/providers/Microsoft.KeyVault/vaults/kv"
)

func newVault() *keyvaultv1alpha1.Vault {
	return &keyvaultv1alpha1.Vault{
		ObjectMeta: metav1.ObjectMeta{Namespace: reconcilertest.Namespace, Name: "kv", UID: "vault-uid"},
		Spec: keyvaultv1alpha1.VaultSpec{
			Owner: &azurev1alpha1.OwnerReference{ARMID: rgID}, Location: "westeurope", TenantID: reconcilertest.TenantID,
			SKU:                  keyvaultv1alpha1.VaultSKU{Family: "A", Name: "standard"},
			EnableSoftDelete:     ptr.To(false),
			EnabledForDeployment: ptr.To(false),
			CreateMode:           "default",
			VaultURI:             "https://kv.vault.azure.net",
			NetworkACLs:          &keyvaultv1alpha1.VaultNetworkRuleSet{IPRules: []keyvaultv1alpha1.VaultIPRule{{Value: "10.0.0.1"}}},
		},
	}
}

// recordOnlyVault is the Vault kind without the facts of what Azure does to
// its answers (comparison/normalize.go: soft delete forced on, createMode never
// answered). The record is what holds where no fact explains Azure's answer
// (Service Bus zone redundancy, a migrated SKU: issue 27's "R" rows); with the
// vault's facts taken away, its well-known answers test the record alone.
type recordOnlyVault struct{ kinds.Vault }

func (k recordOnlyVault) Facts() reconcilers.Facts {
	f := k.Vault.Facts()
	f.Forced, f.NotReturned, f.Normalize, f.OpenValues = nil, nil, nil, nil
	return f
}

// vaultEnv is the emulator with the vault's resource group, and the vault
// object (not yet reconciled).
func vaultEnv(t *testing.T) (*reconcilertest.Env, *keyvaultv1alpha1.Vault) {
	t.Helper()
	v := newVault()
	e := reconcilertest.New(t, recordOnlyVault{}, v)
	e.Put(t, rgID, "2024-03-01", `{"location":"westeurope"}`)
	return e, v
}

// answerClass is one way Azure answers a write its own way: answer changes
// the body Azure takes, kept is the path it keeps, and edit a portal edit
// there (to a value neither the spec nor Azure's answer has).
type answerClass struct {
	name, kept string
	answer     func(body map[string]any)
	edit       string
}

var answerClasses = []answerClass{
	{"forced", "properties.enableSoftDelete", func(b map[string]any) { reconcilertest.Set(b, "properties.enableSoftDelete", true) },
		`{"properties":{"enableSoftDelete":null}}`},
	{"never returned", "properties.createMode", func(b map[string]any) { delete(b["properties"].(map[string]any), "createMode") },
		`{"properties":{"createMode":"recover"}}`},
	{"rewritten", "properties.vaultUri", func(b map[string]any) {
		reconcilertest.Set(b, "properties.vaultUri", reconcilertest.At(b, "properties.vaultUri").(string)+"/")
	}, `{"properties":{"vaultUri":"https://elsewhere.vault.azure.net/"}}`},
	{"element added", "properties.networkAcls.ipRules", func(b map[string]any) {
		rules := reconcilertest.At(b, "properties.networkAcls.ipRules").([]any)
		reconcilertest.Set(b, "properties.networkAcls.ipRules", append(rules, map[string]any{"value": "10.9.9.9"}))
	}, `{"properties":{"networkAcls":{"ipRules":[{"value":"10.0.0.1"},{"value":"10.7.7.7"}]}}}`},
	{"integer enum", "properties.sku.name", func(b map[string]any) { reconcilertest.Set(b, "properties.sku.name", 1) },
		`{"properties":{"sku":{"family":"A","name":2}}}`},
	{"location not returned", "location", func(b map[string]any) { delete(b, "location") },
		`{"location":"northeurope"}`},
}

// syncs reconciles n times and returns the PUTs they made.
func syncs(t *testing.T, e *reconcilertest.Env, r *reconcilers.Reconciler, v *keyvaultv1alpha1.Vault, n int) int {
	t.Helper()
	before := e.Writes(vaultID)
	for range n {
		e.Sync(t, r, v)
	}
	return e.Writes(vaultID) - before
}

func ready(t *testing.T, v *keyvaultv1alpha1.Vault) *metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(v.Status.Conditions, reconcilers.ConditionReady)
	if c == nil {
		t.Fatal("no Ready condition")
	}
	return c
}

func keptPaths(v *keyvaultv1alpha1.Vault) []string {
	var out []string
	if k := v.Status.AzureKeeps; k != nil {
		for _, e := range k.Paths {
			out = append(out, e.Path)
		}
	}
	return out
}

func keptEvents(evs []string) []string {
	var out []string
	for _, ev := range evs {
		if strings.Contains(ev, reconcilers.EventKeptByAzure) {
			out = append(out, ev)
		}
	}
	return out
}

// F3, per class: after the create, syncs write nothing; a portal edit at the
// path Azure keeps, or at another, is put back with exactly one PUT; the
// record and its event are made once.
func TestAnswersPortalEditWrittenOnce(t *testing.T) {
	for _, c := range answerClasses {
		t.Run(c.name, func(t *testing.T) {
			e, v := vaultEnv(t)
			e.Answers.Write(c.answer)
			r := e.Reconciler(false)
			if n := syncs(t, e, r, v, 1); n != 1 {
				t.Fatalf("create: %d PUTs", n)
			}
			if n := syncs(t, e, r, v, 3); n != 0 {
				t.Fatalf("3 syncs after the create: %d PUTs, want 0 (Azure keeps %s its own way)", n, c.kept)
			}
			if got := keptPaths(v); len(got) != 1 || got[0] != c.kept {
				t.Fatalf("status.azureKeeps %v, want %s", got, c.kept)
			}
			if rc := ready(t, v); rc.Status != metav1.ConditionTrue || !strings.Contains(rc.Message, "Azure keeps 1 path(s) its own way (status.azureKeeps)") {
				t.Errorf("Ready %s: %s", rc.Status, rc.Message)
			}
			evs := keptEvents(e.Events())
			if len(evs) != 1 || !strings.Contains(evs[0], "Azure keeps "+c.kept) || !strings.Contains(evs[0], "written again only when the spec changes there") {
				t.Errorf("events %q, want one KeptByAzure naming %s", evs, c.kept)
			}

			e.PortalEdit(t, vaultID, c.edit)
			if n := syncs(t, e, r, v, 3); n != 1 {
				t.Errorf("a portal edit at %s: %d PUTs, want 1", c.kept, n)
			}
			e.PortalEdit(t, vaultID, `{"properties":{"enabledForDeployment":true}}`)
			if n := syncs(t, e, r, v, 3); n != 1 {
				t.Errorf("a portal edit at another path: %d PUTs, want 1", n)
			}
			if got := keptPaths(v); len(got) != 1 || got[0] != c.kept {
				t.Errorf("status.azureKeeps %v after the edits, want %s", got, c.kept)
			}
			if evs := keptEvents(e.Events()); len(evs) != 0 {
				t.Errorf("events %q after writes Azure answered as before, want none", evs)
			}
		})
	}
}

// F2: Azure changes a value it keeps, later and on its own (a SKU migrated):
// one write, whose answer is the new one kept; then nothing.
func TestAnswersAzureSideChangeWritesOnce(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[4].answer) // the SKU's name answered as 1
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	e.Answers.Write(func(b map[string]any) { reconcilertest.Set(b, "properties.sku.name", 3) })
	e.PortalEdit(t, vaultID, `{"properties":{"sku":{"family":"A","name":3}}}`)
	if n := syncs(t, e, r, v, 4); n != 1 {
		t.Errorf("4 syncs after Azure changed the value it keeps: %d PUTs, want 1", n)
	}
	if k := v.Status.AzureKeeps; k == nil || len(k.Paths) != 1 || k.Paths[0].Value != "3" {
		t.Errorf("record %+v, want Azure's new answer", k)
	}
}

// F5: the status patch after a write is lost (the API server, or the
// operator, went away): Azure's answer is not recorded, so the next sync
// writes once more, records it, and the syncs after write nothing.
func TestAnswersLostStatusPatchOneExtraWrite(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	e.FailStatusPatchAfterWrite()
	if n := syncs(t, e, r, v, 1); n != 1 {
		t.Fatalf("create: %d PUTs", n)
	}
	if v.Status.AzureKeeps != nil || v.Status.ID == "" {
		t.Fatalf("status after the lost patch: id %q, azureKeeps %+v; want the id (written before the PUT) and no record", v.Status.ID, v.Status.AzureKeeps)
	}
	if n := syncs(t, e, r, v, 4); n != 1 {
		t.Errorf("4 syncs after a lost record: %d PUTs, want 1", n)
	}
}

// F7: a status restored without the record (a backup without status) costs
// one write, which records Azure's answer again.
func TestAnswersEmptyRecordRelearns(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	if v.Status.AzureKeeps == nil {
		t.Fatal("no record after the create")
	}
	v.Status.AzureKeeps = nil
	if err := e.Client.Status().Update(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if n := syncs(t, e, e.Reconciler(false), v, 4); n != 1 {
		t.Errorf("4 syncs without the record: %d PUTs, want 1", n)
	}
	if got := keptPaths(v); len(got) != 1 {
		t.Errorf("status.azureKeeps %v, want it learnt again", got)
	}
}

// F9: a record made with another api-version is dropped: that version may
// answer otherwise. One write learns the answer of the kind's.
func TestAnswersAPIVersionResets(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	v.Status.AzureKeeps.APIVersion = "2023-07-01"
	if err := e.Client.Status().Update(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if n := syncs(t, e, r, v, 3); n != 1 {
		t.Errorf("3 syncs with a record of another api-version: %d PUTs, want 1", n)
	}
	if k := v.Status.AzureKeeps; k == nil || k.APIVersion != (recordOnlyVault{}).Facts().APIVersion || len(k.Paths) != 1 {
		t.Errorf("record %+v, want one made with %s", k, (recordOnlyVault{}).Facts().APIVersion)
	}
}

// F10: a spec changed at a path Azure keeps is compared afresh: written once,
// then Azure's answer to the new value is the one kept.
func TestAnswersSpecChangeComparedAfresh(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[2].answer) // rewritten: a slash added to vaultUri
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	v.Spec.VaultURI = "https://other.vault.azure.net"
	if err := e.Client.Update(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if n := syncs(t, e, r, v, 3); n != 1 {
		t.Errorf("3 syncs after the spec changed at the kept path: %d PUTs, want 1", n)
	}
	if got := reconcilertest.At(e.Body(t, vaultID), "properties.vaultUri"); got != "https://other.vault.azure.net/" {
		t.Errorf("Azure has %v", got)
	}
	if k := v.Status.AzureKeeps; k == nil || len(k.Paths) != 1 || k.Paths[0].Value != `"https://other.vault.azure.net/"` {
		t.Errorf("record %+v, want Azure's answer to the new value", k)
	}
}

// A spec changed to what Azure keeps needs no write, and the entry goes: the
// status counts only the paths Azure keeps now.
func TestAnswersSpecMatchingAzureDropsEntry(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer) // soft delete forced on
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	e.Events()
	v.Spec.EnableSoftDelete = ptr.To(true)
	if err := e.Client.Update(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	if n := syncs(t, e, r, v, 2); n != 0 {
		t.Errorf("%d PUTs: Azure already has what the spec says", n)
	}
	if v.Status.AzureKeeps != nil || strings.Contains(ready(t, v).Message, "Azure keeps") {
		t.Errorf("record %+v, Ready %q: want none", v.Status.AzureKeeps, ready(t, v).Message)
	}
	if evs := keptEvents(e.Events()); len(evs) != 1 || !strings.Contains(evs[0], "Azure now answers the spec as written") {
		t.Errorf("events %q", evs)
	}
}

// A resource created again (deleted outside aztenant) is answered afresh:
// the record of the old one goes with the create.
func TestAnswersRecreatedDropsRecord(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	if err := e.Emu.DeleteResource(t.Context(), vaultID); err != nil {
		t.Fatal(err)
	}
	e.Answers.Write(nil) // the new one takes the spec as written
	if n := syncs(t, e, r, v, 3); n != 1 {
		t.Errorf("3 syncs after the resource was deleted: %d PUTs, want 1", n)
	}
	if v.Status.AzureKeeps != nil || strings.Contains(ready(t, v).Message, "Azure keeps") {
		t.Errorf("record %+v, Ready %q: want none", v.Status.AzureKeeps, ready(t, v).Message)
	}
	if evs := keptEvents(e.Events()); len(evs) != 2 || !strings.Contains(evs[1], "Azure now answers the spec as written") {
		t.Errorf("events %q, want the record made, then gone", evs)
	}
}

// F11: a listing thinner than a GET (the vault's item has no enableSoftDelete)
// differs where Azure keeps its own value; the check reads by GET, which
// matches the record: reads, no write.
func TestListingThinnerThanGetNoWrite(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	e.Answers.List(func(item map[string]any) { delete(item["properties"].(map[string]any), "enableSoftDelete") })
	syncs(t, e, e.Reconciler(true), v, 2)
	coll := rgID + "/providers/Microsoft.KeyVault/vaults"
	for i := range 2 {
		// A new reconciler (a restart) has no listing in memory: the check is
		// due and lists the collection.
		lists := e.Lists(coll)
		if n := syncs(t, e, e.Reconciler(true), v, 1); n != 0 {
			t.Errorf("check %d by listing: %d PUTs, want 0", i, n)
		}
		if e.Lists(coll) != lists+1 {
			t.Errorf("check %d: the collection was not listed", i)
		}
	}
	if c := ready(t, v); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready %s: %s", c.Status, c.Message)
	}
}

// F12, observe: the paths Azure keeps are not differences; InSync says how
// many there are, and a real difference is still shown.
func TestObserveShowsKept(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	v.Annotations = map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyObserve)}
	if err := e.Client.Update(t.Context(), v); err != nil {
		t.Fatal(err)
	}
	syncs(t, e, r, v, 1)
	in := meta.FindStatusCondition(v.Status.Conditions, reconcilers.ConditionInSync)
	if len(v.Status.Differences) != 0 || in == nil || in.Status != metav1.ConditionTrue || !strings.Contains(in.Message, "Azure keeps 1 path(s) its own way") {
		t.Fatalf("differences %+v, InSync %+v: want none, and the kept path counted", v.Status.Differences, in)
	}
	e.PortalEdit(t, vaultID, `{"properties":{"enabledForDeployment":true}}`)
	if n := syncs(t, e, r, v, 1); n != 0 {
		t.Fatalf("observed: %d PUTs", n)
	}
	if d := v.Status.Differences; len(d) != 1 || d[0].Path != "properties.enabledForDeployment" {
		t.Errorf("differences %+v, want only properties.enabledForDeployment", d)
	}
}

// F12, plan: an unchanged spec plans NoChange, with the kept paths apart; a
// change elsewhere plans Update of that path alone.
func TestPreviewKeptIsNoChange(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	r := e.Reconciler(false)
	syncs(t, e, r, v, 2)
	p := r.Preview(t.Context(), newVault(), nil)
	if p.Action != planv1alpha1.ActionNoChange || len(p.Differences) != 0 {
		t.Fatalf("preview %s %+v: %s", p.Action, p.Differences, p.Message)
	}
	if k := p.KeptByAzure; len(k) != 1 || k[0].Path != "properties.enableSoftDelete" || k[0].Actual != "true" || k[0].Desired != "false" {
		t.Errorf("keptByAzure %+v", k)
	}
	changed := newVault()
	changed.Spec.EnabledForDeployment = ptr.To(true)
	p = r.Preview(t.Context(), changed, nil)
	if p.Action != planv1alpha1.ActionUpdate || len(p.Differences) != 1 || p.Differences[0].Path != "properties.enabledForDeployment" || len(p.KeptByAzure) != 1 {
		t.Errorf("preview of a change elsewhere: %s %+v kept %+v", p.Action, p.Differences, p.KeptByAzure)
	}
	if n := e.Writes(vaultID); n != 1 {
		t.Errorf("%d PUTs: previews write nothing", n)
	}
}

// The record in status holds digests and Azure's value, not the spec's.
func TestAnswersRecordShape(t *testing.T) {
	e, v := vaultEnv(t)
	e.Answers.Write(answerClasses[0].answer)
	syncs(t, e, e.Reconciler(false), v, 1)
	var stored keyvaultv1alpha1.Vault
	if err := e.Client.Get(t.Context(), client.ObjectKeyFromObject(v), &stored); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(stored.Status.AzureKeeps)
	if err != nil {
		t.Fatal(err)
	}
	k := stored.Status.AzureKeeps
	if k == nil || k.Written != "" || len(k.Paths) != 1 || !strings.HasPrefix(k.Paths[0].Sent, "h1:") || !strings.HasPrefix(k.Paths[0].Answered, "h1:") || k.Paths[0].Value != "true" {
		t.Errorf("record %s", raw)
	}
}
