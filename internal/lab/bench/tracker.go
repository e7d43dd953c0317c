package bench

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	managedidentityv1alpha1 "github.com/aztenant/aztenant/api/managedidentity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/internal/operator"
)

// Tracker watches the aztenant objects through one informer per kind, so
// counting thousands of Ready objects costs the API server a watch, not a
// LIST every poll.
type Tracker struct {
	cache cache.Cache
}

// TrackedLists are empty lists of the kinds the tracker watches: the
// Azure-backed kinds the scenarios create, and Identities.
func TrackedLists() []client.ObjectList { return trackedLists() }

func trackedLists() []client.ObjectList {
	return []client.ObjectList{&resourcesv1alpha1.ResourceGroupList{}, &storagev1alpha1.StorageAccountList{},
		&managedidentityv1alpha1.UserAssignedIdentityList{}, &managedidentityv1alpha1.FederatedIdentityCredentialList{},
		&identityv1alpha1.IdentityList{}}
}

// NewTracker starts the informers and waits for their first LIST.
func NewTracker(ctx context.Context, cfg *rest.Config) (*Tracker, error) {
	scheme, err := operator.Scheme()
	if err != nil {
		return nil, err
	}
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return nil, err
	}
	for _, o := range []client.Object{&resourcesv1alpha1.ResourceGroup{}, &storagev1alpha1.StorageAccount{},
		&managedidentityv1alpha1.UserAssignedIdentity{}, &managedidentityv1alpha1.FederatedIdentityCredential{}, &identityv1alpha1.Identity{}} {
		if _, err := c.GetInformer(ctx, o); err != nil {
			return nil, err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("tracker: caches did not sync")
	}
	return &Tracker{cache: c}, nil
}

// Reader reads from the tracker's cache.
func (t *Tracker) Reader() client.Reader { return t.cache }

// IsReady reports Ready=True for the object's current generation.
func IsReady(o azurev1alpha1.Resource) bool {
	c := meta.FindStatusCondition(o.AzureStatus().Conditions, "Ready")
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == o.GetGeneration()
}

// Counts are objects seen and Ready.
type Counts struct{ Total, Ready int }

// Count counts the tracked Azure-backed objects whose namespace passes keep
// (nil keeps all).
func (t *Tracker) Count(ctx context.Context, keep func(ns string) bool) (Counts, error) {
	var n Counts
	for _, l := range trackedLists() {
		if _, ok := l.(*identityv1alpha1.IdentityList); ok {
			continue
		}
		if err := t.cache.List(ctx, l); err != nil {
			return n, err
		}
		err := meta.EachListItem(l, func(o runtime.Object) error {
			r := o.(azurev1alpha1.Resource)
			if keep != nil && !keep(r.GetNamespace()) {
				return nil
			}
			n.Total++
			if IsReady(r) {
				n.Ready++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// WaitReady waits until want objects (in namespaces kept by keep) are Ready,
// checking every interval; it fails after timeout with the count reached.
func (t *Tracker) WaitReady(ctx context.Context, want int, keep func(string) bool, interval, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	var last Counts
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		n, err := t.Count(ctx, keep)
		last = n
		return err == nil && n.Ready >= want, err
	})
	switch {
	case wait.Interrupted(err) && ctx.Err() == nil:
		return 0, fmt.Errorf("only %d of %d Ready after %s", last.Ready, want, timeout)
	case err != nil:
		return 0, err
	}
	return time.Since(start), nil
}
