package lifecycle_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/reconcilers"
)

// The cluster's own controllers run: the garbage collector deletes
// dependents, the namespace controller empties deleted namespaces.
//
// Each test has namespaces, a stack and an emulator of its own, so the tests
// run in parallel, but for two that go test runs first, alone: the one that
// deletes a CRD (every operator running would see its kind go) and the
// offboarding one, whose operator serves every namespace a Tenant selects,
// those of the other tests too.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.WithControllerManager(), testenv.WithKinds(testenv.KindsAnd(deletedCRD)))
}

// wait is how long a test waits for the cluster: the garbage collector picks
// up the CRDs at its next discovery (every 30 s), and the machine is shared.
const wait = 90 * time.Second

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree is the resources of one namespace under test: a resource group holding
// a storage account (keys in a Secret, endpoints in a ConfigMap) with a blob
// container, and a user-assigned identity (IDs in a ConfigMap) with a
// federated credential.
type tree struct {
	ns        string
	rg        *resourcesv1alpha1.ResourceGroup
	account   *storagev1alpha1.StorageAccount
	container *storagev1alpha1.StorageAccountsBlobServicesContainer
	uai       *managedidentityv1alpha1.UserAssignedIdentity
	fic       *managedidentityv1alpha1.FederatedIdentityCredential
	// exports are the Secret and ConfigMaps the resources own.
	exports []client.Object
}

// newTree creates the tree in ns (its resource group ns+"-app", with the
// annotations given) and waits until all of it is Ready.
func newTree(t *testing.T, s *stacktest.Stack, ns string, rgAnnotations map[string]string) *tree {
	t.Helper()
	garbageCollectorWatches(t)
	name := strings.ReplaceAll(ns, "-", "")
	tr := &tree{ns: ns, rg: stacktest.ResourceGroup(ns, ns+"-app", rgAnnotations, nil)}
	tr.account = &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "st"},
		Spec: storagev1alpha1.StorageAccountSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: tr.rg.Name}, Location: stacktest.Location, Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"},
			OperatorSpec: &storagev1alpha1.StorageAccountOperatorSpec{
				Secrets: &storagev1alpha1.StorageAccountOperatorSecrets{
					Key1: &azurev1alpha1.SecretDestination{Name: name + "-keys", Key: "key1"},
				},
				ConfigMaps: &storagev1alpha1.StorageAccountOperatorConfigMaps{
					BlobEndpoint: &azurev1alpha1.ConfigMapDestination{Name: name + "-endpoints", Key: "blob"},
				},
			},
		},
	}
	tr.container = &storagev1alpha1.StorageAccountsBlobServicesContainer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"},
		Spec:       storagev1alpha1.StorageAccountsBlobServicesContainerSpec{Owner: &azurev1alpha1.OwnerReference{Name: tr.account.Name}},
	}
	tr.uai = &managedidentityv1alpha1.UserAssignedIdentity{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
		Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{
			Owner: &azurev1alpha1.OwnerReference{Name: tr.rg.Name}, Location: stacktest.Location,
			OperatorSpec: &managedidentityv1alpha1.UserAssignedIdentityOperatorSpec{
				ConfigMaps: &managedidentityv1alpha1.UserAssignedIdentityOperatorConfigMaps{
					ClientID: &azurev1alpha1.ConfigMapDestination{Name: name + "-identity", Key: "clientId"},
				},
			},
		},
	}
	tr.fic = &managedidentityv1alpha1.FederatedIdentityCredential{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-workload"},
		Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
			Owner:  &azurev1alpha1.OwnerReference{Name: tr.uai.Name},
			Issuer: s.Env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":workload",
		},
	}
	tr.exports = []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-keys"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-endpoints"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-identity"}},
	}
	for _, o := range tr.resources() {
		s.Create(t, o)
	}
	for _, o := range tr.resources() {
		s.WaitReady(t, o, metav1.ConditionTrue, reconcilers.ReasonSucceeded)
	}
	// The garbage collector follows owner references: every child points at
	// its owner, every export at its resource.
	for _, c := range []struct{ child, owner client.Object }{
		{tr.account, tr.rg}, {tr.container, tr.account}, {tr.uai, tr.rg}, {tr.fic, tr.uai},
		{tr.exports[0], tr.account}, {tr.exports[1], tr.account}, {tr.exports[2], tr.uai},
	} {
		must(t, s.Client.Get(t.Context(), client.ObjectKeyFromObject(c.child), c.child))
		i := slices.IndexFunc(c.child.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == c.owner.GetUID() })
		if i < 0 {
			t.Fatalf("%T %s has no owner reference to %s: %+v", c.child, c.child.GetName(), c.owner.GetName(), c.child.GetOwnerReferences())
		}
		if ref := c.child.GetOwnerReferences()[i]; !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("%T %s does not block the deletion of its owner %s: %+v", c.child, c.child.GetName(), c.owner.GetName(), ref)
		}
	}
	return tr
}

// watchDeletions watches the aztenant objects of namespace ns from now on;
// the function returned waits until n of them are deleted and returns
// "Kind/name" in the order the API server deleted them: by the resource
// version of each deletion (etcd's revision, one sequence for every kind),
// not by when each kind's watch told of it, which on a busy machine is
// another order.
func watchDeletions(t *testing.T, s *stacktest.Stack, ns string) func(n int) []string {
	t.Helper()
	wc, err := client.NewWithWatch(s.Env.Config, client.Options{Scheme: s.Env.Scheme})
	must(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	type deletion struct {
		rv   uint64
		what string
	}
	var mu sync.Mutex
	var gone []deletion
	for _, list := range []client.ObjectList{&resourcesv1alpha1.ResourceGroupList{}, &storagev1alpha1.StorageAccountList{},
		&storagev1alpha1.StorageAccountsBlobServicesContainerList{}, &managedidentityv1alpha1.UserAssignedIdentityList{},
		&managedidentityv1alpha1.FederatedIdentityCredentialList{}} {
		w, err := wc.Watch(ctx, list, client.InNamespace(ns))
		must(t, err)
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type != watch.Deleted {
					continue
				}
				o := ev.Object.(client.Object)
				rv, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
				if err != nil {
					t.Errorf("the deletion of %s has resource version %q: %v", o.GetName(), o.GetResourceVersion(), err)
				}
				mu.Lock()
				gone = append(gone, deletion{rv, kindOf(s, o) + "/" + o.GetName()})
				mu.Unlock()
			}
		}()
	}
	return func(n int) []string {
		t.Helper()
		var out []string
		testenv.Eventually(t, wait, fmt.Sprintf("%d deletions seen", n), func() (bool, string) {
			mu.Lock()
			ds := slices.Clone(gone)
			mu.Unlock()
			slices.SortFunc(ds, func(a, b deletion) int { return cmp.Compare(a.rv, b.rv) })
			out = out[:0]
			for _, d := range ds {
				out = append(out, d.what)
			}
			return len(out) >= n, fmt.Sprintf("seen %q", out)
		})
		return out
	}
}

// resources are the tree's aztenant objects, parents first.
func (tr *tree) resources() []azurev1alpha1.Resource {
	return []azurev1alpha1.Resource{tr.rg, tr.account, tr.container, tr.uai, tr.fic}
}

// children are the objects below the resource group.
func (tr *tree) children() []azurev1alpha1.Resource { return tr.resources()[1:] }

// all is every object of the tree, exports included.
func (tr *tree) all() []client.Object {
	var out []client.Object
	for _, o := range tr.resources() {
		out = append(out, o)
	}
	return append(out, tr.exports...)
}

// waitGone waits until every object is gone from the API server.
func waitGone(t *testing.T, s *stacktest.Stack, objs ...client.Object) {
	t.Helper()
	testenv.Eventually(t, wait, "objects deleted", func() (bool, string) {
		var left []string
		for _, o := range objs {
			cp := o.DeepCopyObject().(client.Object)
			err := s.Client.Get(context.Background(), client.ObjectKeyFromObject(o), cp)
			if !apierrors.IsNotFound(err) {
				left = append(left, fmt.Sprintf("%T %s (finalizers %v, err %v)", o, o.GetName(), cp.GetFinalizers(), err))
			}
		}
		return len(left) == 0, strings.Join(left, "; ")
	})
}

// lastSeq is the emulator's audit position now.
func lastSeq(s *stacktest.Stack) uint64 {
	if e := s.Emu.Audit(emulator.AuditFilter{Limit: 1}); len(e) > 0 {
		return e[0].Seq
	}
	return 0
}

// writes lists the ARM writes since seq, as "METHOD path status".
func writes(s *stacktest.Stack, since uint64) []string {
	var out []string
	for _, e := range s.Emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"}) {
		if e.Method != http.MethodGet && e.Method != http.MethodHead {
			out = append(out, fmt.Sprintf("%s %s %d", e.Method, e.Path, e.Status))
		}
	}
	return out
}

// inAzure reports whether the emulator holds the resource (read through its
// control API: no RBAC, no audit entry).
func inAzure(s *stacktest.Stack, id string) bool {
	_, err := s.Emu.Resource(id)
	return err == nil
}

// events lists the events regarding an object, as kubectl events --for shows them.
func events(t testing.TB, c client.Client, namespace, kind, name string) []eventsv1.Event {
	t.Helper()
	var list eventsv1.EventList
	must(t, c.List(context.Background(), &list, client.InNamespace(namespace)))
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == kind && e.Regarding.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for an event regarding the object with reason and a note
// containing each of texts.
func waitEvent(t *testing.T, c client.Client, namespace, kind, name, reason string, texts ...string) eventsv1.Event {
	t.Helper()
	var found eventsv1.Event
	testenv.Eventually(t, wait, fmt.Sprintf("event %s on %s %s", reason, kind, name), func() (bool, string) {
		var seen []string
		for _, e := range events(t, c, namespace, kind, name) {
			ok := e.Reason == reason
			for _, text := range texts {
				ok = ok && strings.Contains(e.Note, text)
			}
			if ok {
				found = e
				return true, ""
			}
			seen = append(seen, e.Reason+": "+e.Note)
		}
		return false, strings.Join(seen, " | ")
	})
	return found
}

// kindOf is the object's Kind as events name it.
func kindOf(s *stacktest.Stack, o client.Object) string {
	gvk, err := s.Client.GroupVersionKindFor(o)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	return gvk.Kind
}

// readyOf is the object's Ready condition as read now.
func readyOf(s *stacktest.Stack, o azurev1alpha1.Resource) *metav1.Condition {
	if err := s.Client.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		return &metav1.Condition{Reason: err.Error()}
	}
	return meta.FindStatusCondition(o.AzureStatus().Conditions, reconcilers.ConditionReady)
}

func condString(c *metav1.Condition) string {
	if c == nil {
		return "<none>"
	}
	return string(c.Status) + " " + c.Reason + ": " + c.Message
}

var gcReady sync.Once

// garbageCollectorWatches waits, once per package, until kube-controller-
// manager's garbage collector watches the aztenant kinds the tests delete:
// it discovers CRDs installed after it started only at its next discovery
// (every 30 s), and until then it neither deletes nor orphans their objects.
// Objects of each kind whose owner is gone are created in a namespace no
// operator serves; once the collector has deleted them all, it watches them.
func garbageCollectorWatches(t *testing.T) {
	t.Helper()
	gcReady.Do(func() {
		env := testenv.Get(t)
		ctx := context.Background()
		const ns = "gc-probe"
		must(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
		gone := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gone-owner"}}
		must(t, env.Client.Create(ctx, gone))
		must(t, env.Client.Delete(ctx, gone))
		owned := metav1.ObjectMeta{Namespace: ns, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: gone.Name, UID: gone.UID}}}
		named := func(name string) metav1.ObjectMeta { m := *owned.DeepCopy(); m.Name = name; return m }
		rg := stacktest.ResourceGroup(ns, "probe", nil, nil)
		rg.ObjectMeta = named("probe")
		probes := []client.Object{
			rg,
			&storagev1alpha1.StorageAccount{ObjectMeta: named("probe"), Spec: storagev1alpha1.StorageAccountSpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "probe"}, Location: stacktest.Location, Kind: "StorageV2",
				Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}}},
			&storagev1alpha1.StorageAccountsBlobServicesContainer{ObjectMeta: named("probe"), Spec: storagev1alpha1.StorageAccountsBlobServicesContainerSpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "probe"}}},
			&managedidentityv1alpha1.UserAssignedIdentity{ObjectMeta: named("probe"), Spec: managedidentityv1alpha1.UserAssignedIdentitySpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "probe"}, Location: stacktest.Location}},
			&managedidentityv1alpha1.FederatedIdentityCredential{ObjectMeta: named("probe"), Spec: managedidentityv1alpha1.FederatedIdentityCredentialSpec{
				Owner: &azurev1alpha1.OwnerReference{Name: "probe"}, Issuer: env.IssuerURL, Subject: "system:serviceaccount:" + ns + ":probe"}},
		}
		for _, p := range probes {
			must(t, env.Client.Create(ctx, p))
		}
		testenv.Eventually(t, wait, "the garbage collector watches the aztenant kinds", func() (bool, string) {
			var left []string
			for _, p := range probes {
				if err := env.Client.Get(ctx, client.ObjectKeyFromObject(p), p.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
					left = append(left, fmt.Sprintf("%T", p))
				}
			}
			return len(left) == 0, "not collected yet: " + strings.Join(left, ", ")
		})
	})
}

func testenvClient(t testing.TB) client.Client { return testenv.Get(t).Client }
