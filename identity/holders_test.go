package identity_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// resourceFinalizer stands for the reconciler's finalizer: a ConfigMap that
// carries it is a resource that may still need its Identity in Azure.
const resourceFinalizer = "test.aztenant.io/azure-resource"

// configMapsInUse is the InUse of these tests: the namespace's ConfigMaps
// that carry resourceFinalizer, each with the Identity its annotation names,
// as the operator's registry lists its kinds.
func configMapsInUse(c client.Reader) identity.InUseFunc {
	return func(ctx context.Context, ns string) ([]identity.Holder, error) {
		var cms corev1.ConfigMapList
		if err := c.List(ctx, &cms, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		var out []identity.Holder
		for i := range cms.Items {
			o := &cms.Items[i]
			if controllerutil.ContainsFinalizer(o, resourceFinalizer) {
				name, _ := identity.IdentityNameFor(o)
				out = append(out, identity.Holder{Kind: "ConfigMap", Name: o.Name, Identity: name, Deleting: !o.DeletionTimestamp.IsZero()})
			}
		}
		return out, nil
	}
}

// holdingResource creates a resource of ns that holds its finalizer, served
// by the Identity idName ("" for none: default).
func holdingResource(t *testing.T, c client.Client, ns, name, idName string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Finalizers: []string{resourceFinalizer}}}
	if idName != "" {
		cm.Annotations = map[string]string{identity.AnnotationIdentity: idName}
	}
	must(t, c.Create(t.Context(), cm))
	t.Cleanup(func() { release(t, c, cm) })
	return cm
}

// release deletes a resource as its reconciler would once its Azure
// resource is deleted: it drops the finalizer.
func release(t *testing.T, c client.Client, cm *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	if err := c.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	var now corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &now); err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		t.Fatal(err)
	}
	base := now.DeepCopy()
	controllerutil.RemoveFinalizer(&now, resourceFinalizer)
	if err := c.Patch(ctx, &now, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
}

// protected waits until the controller has put the protection finalizer
// on the Identity, that is, has taken it into account.
func protected(t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	eventually(t, "protection finalizer on Identity "+name, getIdentity(t, c, ns, name), func(id *identityv1alpha1.Identity) bool {
		return controllerutil.ContainsFinalizer(id, identity.ProtectionFinalizer)
	})
}

// gone waits until each object is gone from the API server.
func gone(t *testing.T, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		testenv.Eventually(t, 30*time.Second, fmt.Sprintf("%T %s deleted", o, o.GetName()), func() (bool, string) {
			err := c.Get(t.Context(), client.ObjectKeyFromObject(o), o)
			if apierrors.IsNotFound(err) {
				return true, ""
			}
			return false, fmt.Sprintf("err %v, finalizers %v, deleting since %v", err, o.GetFinalizers(), o.GetDeletionTimestamp())
		})
	}
}

func getSA(t *testing.T, c client.Client, ns, name string) *corev1.ServiceAccount {
	t.Helper()
	var sa corev1.ServiceAccount
	must(t, c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, &sa))
	return &sa
}

// A second Identity nobody uses, in a namespace whose resources are all
// served by default, goes at once when deleted, and so does its ordinary
// ServiceAccount: the operator never acts with that account, so it gets no
// protection finalizer at all. A second Identity sharing the provisioner
// account goes at once too, and the account stays protected for default.
func TestUnusedSecondIdentityIsDeletedAtOnce(t *testing.T) {
	t.Parallel()
	const ns = "holders-unused"
	w := newWorld(t, ns, ns+"-b")
	c := w.c
	tenantNamespace(t, c, ns, clientA)
	holdingResource(t, c, ns, "on-default-1", "")
	holdingResource(t, c, ns, "on-default-2", identity.DefaultIdentityName)
	startControllerWith(t, w, configMapsInUse(c), ns)
	eventually(t, "default Ready", getIdentity(t, c, ns, "default"), readyIs(metav1.ConditionTrue, identity.ReasonExchanged))

	// An Identity naming an ordinary account, which the operator refuses to
	// exchange (anyone may mint its tokens).
	builder := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "builder"}}
	must(t, c.Create(t.Context(), builder))
	second := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: "builder", ClientID: clientA2, TenantID: tenantID, SubscriptionID: subID}}
	must(t, c.Create(t.Context(), second))
	// And one sharing the provisioner account with default.
	shared := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: clientA2, SubscriptionID: subID}}
	must(t, c.Create(t.Context(), shared))
	eventually(t, "second refused", getIdentity(t, c, ns, "second"), readyIs(metav1.ConditionFalse, identity.ReasonServiceAccountNotReserved))
	eventually(t, "shared Ready", getIdentity(t, c, ns, "shared"), readyIs(metav1.ConditionTrue, identity.ReasonExchanged))
	protected(t, c, ns, "second")
	if sa := getSA(t, c, ns, "builder"); controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer) {
		t.Errorf("the ordinary ServiceAccount %s, which the operator never acts with, got the protection finalizer", sa.Name)
	}

	must(t, c.Delete(t.Context(), second))
	must(t, c.Delete(t.Context(), builder))
	must(t, c.Delete(t.Context(), shared))
	gone(t, c, second, builder, shared)

	// default still serves its resources, and its account stays protected.
	if sa := getSA(t, c, ns, identity.ProvisionerServiceAccount); !controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer) || !sa.DeletionTimestamp.IsZero() {
		t.Errorf("deleting an unused Identity sharing %s dropped its protection (finalizers %v)", sa.Name, sa.Finalizers)
	}
	if id, err := getIdentity(t, c, ns, "default")(); err != nil || !readyIs(metav1.ConditionTrue, identity.ReasonExchanged)(id) {
		t.Errorf("default is no longer Ready: %v %+v", err, id.Status.Conditions)
	}
}

// An Identity used by one resource waits for that resource only: its
// Terminating condition and event name exactly it, never the resources
// served by default; it goes once its last user is deleted or now names
// another Identity. The default Identity, deleted in turn, waits for the
// resources using it by default, and names only them.
func TestIdentityIsHeldOnlyByItsUsers(t *testing.T) {
	t.Parallel()
	const ns = "holders-used"
	w := newWorld(t, ns, ns+"-b")
	c := w.c
	tenantNamespace(t, c, ns, clientA)
	onDefault := holdingResource(t, c, ns, "on-default", "")
	onDefaultToo := holdingResource(t, c, ns, "on-default-too", identity.DefaultIdentityName)
	user := holdingResource(t, c, ns, "user-of-second", "second")
	moving := holdingResource(t, c, ns, "moving", "second")
	second := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: clientA2, SubscriptionID: subID}}
	must(t, c.Create(t.Context(), second))
	startControllerWith(t, w, configMapsInUse(c), ns)
	eventually(t, "second Ready", getIdentity(t, c, ns, "second"), readyIs(metav1.ConditionTrue, identity.ReasonExchanged))
	protected(t, c, ns, "second")

	must(t, c.Delete(t.Context(), second))
	msg := terminating(t, c, ns, "second", 2, "(ConfigMap moving, ConfigMap user-of-second)")
	for _, not := range []string{onDefault.Name, onDefaultToo.Name} {
		if strings.Contains(msg, not) {
			t.Errorf("Terminating message %q names %s, which default serves", msg, not)
		}
	}
	checkEvent(t, c, ns, "second", "2 resource(s)", onDefault.Name)

	// One user moves to default: it no longer holds second.
	var m corev1.ConfigMap
	must(t, c.Get(t.Context(), client.ObjectKeyFromObject(moving), &m))
	delete(m.Annotations, identity.AnnotationIdentity)
	must(t, c.Update(t.Context(), &m))
	msg = terminating(t, c, ns, "second", 1, "(ConfigMap user-of-second)")
	if strings.Contains(msg, "moving") {
		t.Errorf("Terminating message %q names the resource that moved to default", msg)
	}
	// The last one is deleted; its Azure deletion still needs second.
	must(t, c.Delete(t.Context(), user))
	terminating(t, c, ns, "second", 1, "(ConfigMap user-of-second (being deleted))")
	release(t, c, user)
	gone(t, c, second)
	if sa := getSA(t, c, ns, identity.ProvisionerServiceAccount); !controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer) {
		t.Errorf("the provisioner account lost its protection while default serves resources (finalizers %v)", sa.Finalizers)
	}

	// default, deleted, waits for its three users (moving came over) only.
	def := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}
	must(t, c.Delete(t.Context(), def))
	terminating(t, c, ns, "default", 3, "(ConfigMap moving, ConfigMap on-default, ConfigMap on-default-too)")
	checkEvent(t, c, ns, "default", "3 resource(s)", user.Name)
	for _, r := range []*corev1.ConfigMap{onDefault, onDefaultToo, moving} {
		release(t, c, r)
	}
	gone(t, c, def)
}

// What a namespace deletion does, in the worst order, with the provisioner
// account shared by two Identities: default, unused, goes at once; second
// and the account stay until second's user is deleted, then go.
func TestSharedServiceAccountOutlivesOnlyTheIdentityInUse(t *testing.T) {
	t.Parallel()
	const ns = "holders-ns"
	w := newWorld(t, ns, ns+"-b")
	c := w.c
	tenantNamespace(t, c, ns, clientA)
	user := holdingResource(t, c, ns, "user-of-second", "second")
	second := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "second"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, ClientID: clientA2, SubscriptionID: subID}}
	must(t, c.Create(t.Context(), second))
	startControllerWith(t, w, configMapsInUse(c), ns)
	protected(t, c, ns, "second")
	protected(t, c, ns, "default")
	sa := getSA(t, c, ns, identity.ProvisionerServiceAccount)
	eventually(t, "protection finalizer on the provisioner account", func() (*corev1.ServiceAccount, error) {
		err := c.Get(t.Context(), client.ObjectKeyFromObject(sa), sa)
		return sa, err
	}, func(sa *corev1.ServiceAccount) bool {
		return controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer)
	})

	def := &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default"}}
	must(t, c.Delete(t.Context(), sa))
	must(t, c.Delete(t.Context(), def))
	must(t, c.Delete(t.Context(), second))
	gone(t, c, def)
	terminating(t, c, ns, "second", 1)
	if got := getSA(t, c, ns, identity.ProvisionerServiceAccount); !controllerutil.ContainsFinalizer(got, identity.ProtectionFinalizer) {
		t.Fatalf("the account second acts with was released while second's user still needs it")
	}
	release(t, c, user)
	gone(t, c, second, sa)
}

// terminating waits until the Identity shows Ready=False, Terminating, with
// n resources holding it, naming each of naming, and returns the message.
func terminating(t *testing.T, c client.Client, ns, name string, n int, naming ...string) string {
	t.Helper()
	want := append([]string{fmt.Sprintf("%d resource(s) of namespace %s still hold it", n, ns)}, naming...)
	id := eventually(t, fmt.Sprintf("Identity %s Terminating, held by %d %v", name, n, naming), getIdentity(t, c, ns, name), func(id *identityv1alpha1.Identity) bool {
		cond := meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != identity.ReasonTerminating {
			return false
		}
		for _, w := range want {
			if !strings.Contains(cond.Message, w) {
				return false
			}
		}
		return true
	})
	return meta.FindStatusCondition(id.Status.Conditions, identity.ConditionReady).Message
}

// checkEvent waits for the Terminating event of the Identity, which must
// contain want and not notWant.
func checkEvent(t *testing.T, c client.Client, ns, name, want, notWant string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "Terminating event of "+name, func() (bool, string) {
		var evs eventsv1.EventList
		if err := c.List(t.Context(), &evs, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.Regarding.Name != name || e.Reason != identity.ReasonTerminating {
				seen = append(seen, e.Regarding.Name+"/"+e.Reason)
				continue
			}
			if strings.Contains(e.Note, notWant) {
				t.Errorf("Terminating event %q names %s", e.Note, notWant)
			}
			if strings.Contains(e.Note, want) {
				return true, ""
			}
			seen = append(seen, e.Note)
		}
		return false, fmt.Sprintf("events %q", seen)
	})
}
