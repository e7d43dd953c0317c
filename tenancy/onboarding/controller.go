package onboarding

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/tenancy"
)

// Reconciler onboards and offboards the namespaces of Tenants with
// spec.onboarding. It writes only status.onboarding, the Onboarded condition
// and its finalizer on Tenants.
type Reconciler struct {
	// Client reads Tenants from the cache, creates and deletes
	// ServiceAccounts and Identities, and patches Tenants.
	Client client.Client
	// APIReader reads the platform Identity (its namespace need not be cached)
	// and checks ServiceAccounts and Identities right before writing them.
	APIReader client.Reader
	// Directory says which Tenant a namespace belongs to (conflicts excluded)
	// and whether the platform identity's namespace is served to tenants.
	Directory *tenancy.Directory
	// Credentials turns the platform Identity into an Entra ID credential.
	Credentials *identity.Credentials
	// ARMOptions point the ARM clients at the cloud.
	ARMOptions *arm.ClientOptions
	// Platform is the platform Identity; empty disables onboarding (Tenants
	// asking for it get PlatformIdentityNotConfigured).
	Platform types.NamespacedName
	// Issuer returns the cluster's service-account issuer URL.
	Issuer   func(context.Context) (string, error)
	Recorder events.EventRecorder
	// Resync is how often an onboarded Tenant is compared with Azure again
	// (default 1h); RetryAfter how soon a failed step is tried again (30s).
	Resync, RetryAfter time.Duration
	// InUse, when set, lists a namespace's objects that still hold the
	// reconciler's finalizer: while any is left, offboarding's deletion of the
	// namespace's Identity and ServiceAccount waits, and status says for what.
	InUse identity.InUseFunc
	// RequestedGroups, when true (the ResourceGroup kind is served), has
	// onboarding create the resource groups developers ask for with a
	// ResourceGroup object (see requestedGroups); ClusterID is the
	// reconcilers' cluster ID, for the owner marker those groups carry.
	RequestedGroups bool
	ClusterID       string
}

// The operator's permissions for onboarding. Each line says why it is needed.
//
// Keep a finalizer on Tenants until offboarding is done:
// +kubebuilder:rbac:groups=tenancy.aztenant.io,resources=tenants,verbs=get;list;watch;patch
// Create the onboarded namespace's ServiceAccount, patch its workload-identity
// annotations, delete it at offboarding:
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create;patch;delete
// Create the onboarded namespace's default Identity, delete it at offboarding:
// +kubebuilder:rbac:groups=identity.aztenant.io,resources=identities,verbs=get;list;watch;create;patch;delete
// Read the cluster's service-account issuer for federated credentials:
// +kubebuilder:rbac:urls=/.well-known/openid-configuration,verbs=get

// SetupWithManager registers the controller. It also watches the
// ServiceAccounts and Identities onboarding created, so a deleted one is
// recreated and offboarding continues as soon as one is gone.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Resync == 0 {
		r.Resync = time.Hour
	}
	if r.RetryAfter == 0 {
		r.RetryAfter = 30 * time.Second
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named("tenant-onboarding").
		For(&tenancyv1alpha1.Tenant{}).
		Watches(&corev1.ServiceAccount{}, handler.EnqueueRequestsFromMapFunc(onboardedBy)).
		Watches(&identityv1alpha1.Identity{}, handler.EnqueueRequestsFromMapFunc(r.identityChanged))
	if r.RequestedGroups {
		// A ResourceGroup object created, deleted or changed may ask for a
		// group, or no longer need the roles on one.
		b = b.Watches(&resourcesv1alpha1.ResourceGroup{}, handler.EnqueueRequestsFromMapFunc(r.tenantOf),
			builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	}
	return b.Complete(r)
}

// tenantOf maps an object to the Tenant serving its namespace.
func (r *Reconciler) tenantOf(ctx context.Context, obj client.Object) []reconcile.Request {
	t, err := r.Directory.TenantFor(ctx, obj.GetNamespace())
	if err != nil || t == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: t.Name}}}
}

// identityChanged maps an onboarded Identity to its Tenant, and the platform
// Identity to every Tenant using onboarding: fixing it resumes them at once.
func (r *Reconciler) identityChanged(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetNamespace() != r.Platform.Namespace || obj.GetName() != r.Platform.Name {
		return onboardedBy(ctx, obj)
	}
	var tenants tenancyv1alpha1.TenantList
	if err := r.Client.List(ctx, &tenants); err != nil {
		log.FromContext(ctx).Error(err, "list tenants for the platform identity")
		return nil
	}
	var reqs []reconcile.Request
	for _, t := range tenants.Items {
		if t.Spec.Onboarding != nil || t.Status.Onboarding != nil {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: t.Name}})
		}
	}
	return reqs
}

func onboardedBy(_ context.Context, obj client.Object) []reconcile.Request {
	if t := obj.GetLabels()[LabelOnboardedBy]; t != "" {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: t}}}
	}
	return nil
}

// Reconcile onboards the Tenant's namespaces and offboards what is recorded
// but no longer wanted. Its span has the pass's steps as children and
// carries the outcome (tracing.go).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ctx, span := tracer.Start(ctx, SpanReconcile, trace.WithAttributes(attribute.String("aztenant.tenant", req.Name)))
	defer span.End()
	tr := &stepTrace{}
	t := &tenancyv1alpha1.Tenant{}
	res, err := r.reconcile(context.WithValue(ctx, stepTraceKey{}, tr), req, t)
	tr.close(err)
	traceOutcome(span, t, tr.ran, res, err)
	return res, err
}

func (r *Reconciler) reconcile(ctx context.Context, req reconcile.Request, t *tenancyv1alpha1.Tenant) (reconcile.Result, error) {
	if err := r.Client.Get(ctx, req.NamespacedName, t); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	wanted := t.Spec.Onboarding != nil && t.DeletionTimestamp.IsZero()
	rec := newRecord(t.Status.Onboarding)
	if !wanted && len(rec.items) == 0 {
		return reconcile.Result{}, r.finish(ctx, t)
	}
	if wanted && t.Status.ObservedGeneration != t.Generation {
		// status.namespaces is the Tenant controller's, not yet for this spec:
		// its update is the event that brings us back.
		return reconcile.Result{RequeueAfter: time.Second}, nil
	}
	if wanted && !controllerutil.ContainsFinalizer(t, Finalizer) {
		// Before anything is created, so nothing can outlive the Tenant.
		base := t.DeepCopy()
		controllerutil.AddFinalizer(t, Finalizer)
		if err := r.Client.Patch(ctx, t, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return conflictRetry(err)
		}
	}
	s := &pass{r: r, t: t, rec: rec, azure: map[string]*azure{}, tr: passTrace(ctx)}
	res, err := s.run(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := r.writeStatus(ctx, t, s); err != nil {
		return conflictRetry(err)
	}
	if !wanted && len(s.rec.items) == 0 {
		return reconcile.Result{}, r.finish(ctx, t)
	}
	return res, nil
}

// finish clears onboarding's status and finalizer once nothing is recorded.
func (r *Reconciler) finish(ctx context.Context, t *tenancyv1alpha1.Tenant) error {
	if t.Status.Onboarding != nil || meta.FindStatusCondition(t.Status.Conditions, ConditionOnboarded) != nil {
		base := t.DeepCopy()
		t.Status.Onboarding = nil
		meta.RemoveStatusCondition(&t.Status.Conditions, ConditionOnboarded)
		if err := r.Client.Status().Patch(ctx, t, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	if controllerutil.ContainsFinalizer(t, Finalizer) {
		base := t.DeepCopy()
		controllerutil.RemoveFinalizer(t, Finalizer)
		if err := r.Client.Patch(ctx, t, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	return nil
}

func conflictRetry(err error) (reconcile.Result, error) {
	if apierrors.IsConflict(err) {
		return reconcile.Result{RequeueAfter: 200 * time.Millisecond}, nil // the cache is behind
	}
	return reconcile.Result{}, client.IgnoreNotFound(err)
}

func (r *Reconciler) writeStatus(ctx context.Context, t *tenancyv1alpha1.Tenant, s *pass) error {
	base := t.DeepCopy()
	t.Status.Onboarding = &tenancyv1alpha1.OnboardingStatus{
		ObservedGeneration: t.Generation, Steps: s.steps, Created: s.rec.sorted(),
	}
	cond := s.condition()
	changed := meta.SetStatusCondition(&t.Status.Conditions, cond)
	if equality.Semantic.DeepEqual(base.Status, t.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, t, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	if changed && r.Recorder != nil {
		typ := corev1.EventTypeNormal
		if cond.Status != metav1.ConditionTrue && cond.Reason != ReasonOffboarding && cond.Reason != ReasonInProgress {
			typ = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(t, nil, typ, cond.Reason, "Onboarding", "%s", cond.Message)
	}
	return nil
}

// pass is one reconcile's work on one Tenant.
type pass struct {
	r     *Reconciler
	t     *tenancyv1alpha1.Tenant
	rec   *record
	azure map[string]*azure
	cred  azcore.TokenCredential
	tr    *stepTrace // the span of the step in progress

	steps   []tenancyv1alpha1.OnboardingStep
	failure *tenancyv1alpha1.OnboardingStep // first failed step
	general *StepError                      // a failure before any step
	pending bool                            // offboarding waits for something
	waiting []string                        // what offboarding waits for, per namespace
}

func (s *pass) condition() metav1.Condition {
	c := metav1.Condition{Type: ConditionOnboarded, Status: metav1.ConditionFalse, ObservedGeneration: s.t.Generation}
	onboarded := 0
	for _, st := range s.steps {
		if st.Name == tenancyv1alpha1.StepIdentity && st.State == tenancyv1alpha1.StepReady {
			onboarded++
		}
	}
	switch {
	case s.general != nil:
		c.Reason, c.Message = s.general.Reason, s.general.Message
	case s.failure != nil:
		c.Reason = s.failure.Reason
		c.Message = s.failure.Name + ": " + s.failure.Message
		if s.failure.Namespace != "" {
			c.Message = "namespace " + s.failure.Namespace + ": " + c.Message
		}
	case s.pending || s.t.Spec.Onboarding == nil || !s.t.DeletionTimestamp.IsZero():
		c.Reason, c.Message = ReasonOffboarding, "removing what onboarding created"
		if len(s.waiting) > 0 {
			c.Message += "; waiting for " + strings.Join(s.waiting, "; ")
		}
	default:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonOnboarded
		c.Message = fmt.Sprintf("%d namespace(s) onboarded", onboarded)
	}
	return c
}

func (s *pass) step(ns, name, state string, err error, ids ...string) {
	st := tenancyv1alpha1.OnboardingStep{Namespace: ns, Name: name, State: state, IDs: ids}
	if err != nil {
		var se *StepError
		if errors.As(err, &se) {
			st.Reason = se.Reason
		} else {
			st.Reason = ReasonAzureError
		}
		st.Message = err.Error()
	}
	s.tr.endStep(st)
	s.steps = append(s.steps, st)
	if state == tenancyv1alpha1.StepFailed && s.failure == nil {
		s.failure = &s.steps[len(s.steps)-1]
		f := *s.failure
		s.failure = &f
	}
}

func (s *pass) fail(err error) (reconcile.Result, error) {
	var se *StepError
	if !errors.As(err, &se) {
		return reconcile.Result{}, err
	}
	s.general = se
	return reconcile.Result{RequeueAfter: s.r.RetryAfter}, nil
}

func (s *pass) event(typ, reason, format string, args ...any) {
	if s.r.Recorder != nil {
		s.r.Recorder.Eventf(s.t, nil, typ, reason, "Onboarding", format, args...)
	}
}

func (s *pass) azureFor(sub string) (*azure, error) {
	if a, ok := s.azure[sub]; ok {
		return a, nil
	}
	a, err := newAzure(sub, s.cred, s.r.ARMOptions)
	if err != nil {
		return nil, err
	}
	s.azure[sub] = a
	return a, nil
}

func (s *pass) run(ctx context.Context) (reconcile.Result, error) {
	r, t := s.r, s.t
	if r.Platform.Name == "" {
		return s.fail(&StepError{Reason: ReasonPlatformIdentityNotConfigured, Message: "the operator runs without --platform-identity, so it cannot onboard: " +
			"run `aztenant onboard <namespace> --print` and apply what it prints, or give the operator a platform identity"})
	}
	// A tenant of the platform identity's namespace could use it for its own
	// resources, with rights over every tenant.
	var none *tenancy.NoTenantError
	if _, err := r.Directory.TenantFor(ctx, r.Platform.Namespace); !errors.As(err, &none) {
		var conflict *tenancy.ConflictError
		if err != nil && !errors.As(err, &conflict) {
			return reconcile.Result{}, err
		}
		return s.fail(&StepError{Reason: ReasonPlatformIdentityServed, Message: fmt.Sprintf(
			"namespace %q holds the platform identity and is selected by a Tenant: no Tenant may select it", r.Platform.Namespace)})
	}
	var err error
	if s.cred, err = r.platformCredential(ctx); err != nil {
		return s.fail(err)
	}

	ob := t.Spec.Onboarding
	wanted := ob != nil && t.DeletionTimestamp.IsZero()
	var desired []string
	keepNS := map[string]bool{}
	if wanted {
		if err := s.checkSpec(ctx); err != nil {
			return s.fail(err)
		}
		for _, ns := range t.Status.Namespaces {
			owner, err := r.Directory.TenantFor(ctx, ns)
			var conflict *tenancy.ConflictError
			switch {
			case errors.As(err, &conflict):
				// Neither onboard nor offboard while two Tenants claim it.
				keepNS[ns] = true
				s.step(ns, tenancyv1alpha1.StepManagedIdentity, tenancyv1alpha1.StepPending,
					&StepError{Reason: ReasonNamespaceConflict, Message: conflict.Error()})
			case err != nil:
				var none *tenancy.NoTenantError
				if !errors.As(err, &none) {
					return reconcile.Result{}, err
				}
			case owner.Name == t.Name:
				desired = append(desired, ns)
				keepNS[ns] = true
			}
		}
	}

	res := reconcile.Result{RequeueAfter: r.Resync}
	if wanted {
		rgIDs, err := s.resourceGroups(ctx)
		if err == nil {
			issuer, ierr := r.Issuer(ctx)
			if ierr != nil {
				return s.fail(&StepError{Reason: ReasonIssuerUnknown, Err: ierr, Message: "the cluster's service-account issuer is unknown (set --oidc-issuer-url): " + ierr.Error()})
			}
			for _, ns := range desired {
				if err := s.onboard(ctx, ns, issuer, rgIDs); err != nil {
					return reconcile.Result{}, err
				}
			}
		}
	}
	// Offboard namespaces that left, then resource groups no longer wanted.
	for _, ns := range s.rec.namespaces() {
		if keepNS[ns] {
			continue
		}
		if err := s.offboard(ctx, ns, nil); err != nil {
			return reconcile.Result{}, err
		}
	}
	if !s.pending && s.failure == nil {
		keep := map[string]bool{}
		if wanted {
			for _, st := range s.steps {
				if st.Name == tenancyv1alpha1.StepResourceGroups {
					for _, id := range st.IDs {
						keep[strings.ToLower(id)] = true
					}
				}
			}
		}
		if len(s.rec.namespaces()) == 0 || wanted {
			if err := s.offboard(ctx, "", keep); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	switch {
	case s.pending:
		res = reconcile.Result{RequeueAfter: 2 * time.Second}
	case s.failure != nil:
		res = reconcile.Result{RequeueAfter: r.RetryAfter}
	}
	return res, nil
}

// checkSpec refuses what CRD validation cannot express: resource groups the
// tenant's patterns do not allow or that hold any Tenant's identities,
// locations it may not use, unknown roles.
func (s *pass) checkSpec(ctx context.Context) error {
	t, ob := s.t, s.t.Spec.Onboarding
	identityGroups, err := s.identityGroups(ctx)
	if err != nil {
		return err
	}
	for _, rg := range ob.ResourceGroups {
		if !tenancy.ResourceGroupAllowed(t, rg) {
			return &StepError{Reason: ReasonResourceGroupNotAllowed, Message: fmt.Sprintf(
				"onboarding.resourceGroups: %q does not match the Tenant's resourceGroups (%s)", rg, strings.Join(t.Spec.ResourceGroups, ", "))}
		}
		// A role there would let these namespaces federate another tenant's
		// identity with themselves.
		if owner, ok := identityGroups[strings.ToLower(ResourceGroupID(subscriptionOf(t), rg))]; ok {
			return &StepError{Reason: ReasonResourceGroupNotAllowed, Message: fmt.Sprintf(
				"onboarding.resourceGroups: %q holds the managed identities of Tenant %q (its onboarding.identityResourceGroup): no namespace may get a role there", rg, owner)}
		}
	}
	if !tenancy.LocationAllowed(t, string(ob.Location)) {
		return &StepError{Reason: ReasonLocationNotAllowed, Message: fmt.Sprintf(
			"onboarding.location %q is not one of the Tenant's locations (%s)", ob.Location, fmt.Sprint(t.Spec.Locations))}
	}
	for _, role := range roles(ob) {
		if _, err := CheckRole(role); err != nil {
			return err
		}
	}
	if ob.Apps != nil {
		for _, role := range ob.Apps.Roles {
			if _, err := CheckAppRole(role); err != nil {
				return err
			}
		}
	}
	return nil
}

// identityGroups maps the lower-case IDs of every onboarding Tenant's identity
// resource group to one Tenant using it.
func (s *pass) identityGroups(ctx context.Context) (map[string]string, error) {
	var tenants tenancyv1alpha1.TenantList
	if err := s.r.Client.List(ctx, &tenants); err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	out := map[string]string{}
	for i := range tenants.Items {
		o := &tenants.Items[i]
		if o.Spec.Onboarding == nil || len(o.Spec.Subscriptions) == 0 {
			continue
		}
		out[strings.ToLower(ResourceGroupID(subscriptionOf(o), identityGroupOf(o.Spec.Onboarding)))] = o.Name
	}
	return out, nil
}

// location is onboarding's location as ARM names it.
func location(ob *tenancyv1alpha1.TenantOnboarding) string {
	return azurev1alpha1.NormalizeLocation(string(ob.Location))
}

func roles(ob *tenancyv1alpha1.TenantOnboarding) []string {
	if len(ob.Roles) == 0 {
		return []string{DefaultRole}
	}
	return ob.Roles
}

func subscriptionOf(t *tenancyv1alpha1.Tenant) string {
	if s := t.Spec.Onboarding.Subscription; s != "" {
		return s
	}
	return t.Spec.Subscriptions[0]
}

func identityGroupOf(ob *tenancyv1alpha1.TenantOnboarding) string {
	if ob.IdentityResourceGroup != "" {
		return ob.IdentityResourceGroup
	}
	return DefaultIdentityResourceGroup
}

// serviceAccountOf is the account onboarding federates: always the reserved
// provisioner account. spec.onboarding.serviceAccountName is deprecated; a
// Tenant still naming another account (the old default "azure") migrates:
// the federated credential moves to the reserved account, the Identity
// follows, and the old account onboarding created is deleted.
func serviceAccountOf(*tenancyv1alpha1.TenantOnboarding) string {
	return identity.ProvisionerServiceAccount
}

// resourceGroups runs the shared step: the tenant's groups and the identity
// group exist. It returns the IDs of the tenant's groups (role scopes).
func (s *pass) resourceGroups(ctx context.Context) ([]string, error) {
	ob := s.t.Spec.Onboarding
	a, err := s.azureFor(subscriptionOf(s.t))
	if err != nil {
		return nil, err
	}
	var scopes, ids []string
	for _, rg := range append(slices.Clone(ob.ResourceGroups), identityGroupOf(ob)) {
		id, created, err := a.ensureResourceGroup(s.begin(ctx, "", tenancyv1alpha1.StepResourceGroups), rg, location(ob), s.t.Name)
		if err != nil {
			s.step("", tenancyv1alpha1.StepResourceGroups, tenancyv1alpha1.StepFailed, err, ids...)
			return nil, err
		}
		if created && !s.rec.has(KindResourceGroup, id) {
			s.rec.add("", KindResourceGroup, id)
			s.event(corev1.EventTypeNormal, "Created", "created resource group %s", id)
		}
		ids = append(ids, id)
		if rg != identityGroupOf(ob) {
			scopes = append(scopes, id)
		}
	}
	s.step("", tenancyv1alpha1.StepResourceGroups, tenancyv1alpha1.StepReady, nil, ids...)
	return scopes, nil
}

// onboard runs a namespace's steps in order; the first failure leaves the
// later ones Pending. Only Kubernetes API failures are returned.
func (s *pass) onboard(ctx context.Context, ns, issuer string, scopes []string) error {
	ob, t := s.t.Spec.Onboarding, s.t
	sub, idRG, saName := subscriptionOf(t), identityGroupOf(ob), serviceAccountOf(ob)
	a, err := s.azureFor(sub)
	if err != nil {
		return err
	}
	if old := ob.ServiceAccountName; old != "" && old != saName {
		s.event(corev1.EventTypeWarning, "ServiceAccountNameIgnored",
			"spec.onboarding.serviceAccountName %q is no longer used: namespaces provision as ServiceAccount %s, which admission reserves for the operator; %q is no longer federated (remove the field)",
			old, saName, old)
	}
	order := []string{tenancyv1alpha1.StepManagedIdentity, tenancyv1alpha1.StepFederatedCredential,
		tenancyv1alpha1.StepRoleAssignments, tenancyv1alpha1.StepServiceAccount, tenancyv1alpha1.StepIdentity}
	if ob.Apps != nil {
		order = append(order, tenancyv1alpha1.StepAppManagedIdentity, tenancyv1alpha1.StepAppFederatedCredential,
			tenancyv1alpha1.StepAppRoleAssignments, tenancyv1alpha1.StepAppServiceAccount)
	}
	failed := func(i int, err error, ids ...string) error {
		var se *StepError
		if !errors.As(err, &se) {
			return err
		}
		s.step(ns, order[i], tenancyv1alpha1.StepFailed, err, ids...)
		for _, later := range order[i+1:] {
			s.step(ns, later, tenancyv1alpha1.StepPending, &StepError{Reason: ReasonWaiting, Message: "waits for " + order[i]})
		}
		return nil
	}
	keep := map[string]bool{}
	ok := func(kind, id string, created bool) {
		keep[strings.ToLower(id)] = true
		if created && !s.rec.has(kind, id) {
			s.rec.add(ns, kind, id)
			s.event(corev1.EventTypeNormal, "Created", "namespace %s: created %s %s", ns, kind, id)
		}
	}

	mi, err := a.ensureIdentity(s.begin(ctx, ns, order[0]), idRG, IdentityName(ns), location(ob), t.Name)
	if err != nil {
		return failed(0, err)
	}
	ok(KindManagedIdentity, mi.id, mi.created)
	s.step(ns, order[0], tenancyv1alpha1.StepReady, nil, mi.id)

	ficID, created, err := a.ensureFederatedCredential(s.begin(ctx, ns, order[1]), idRG, IdentityName(ns), FederatedCredentialName(ns), issuer, Subject(ns, saName))
	if err != nil {
		return failed(1, err)
	}
	// Deleting the identity deletes its credential: record the credential
	// only when the identity itself is not onboarding's.
	ok(KindFederatedCredential, ficID, created && !mi.created)
	s.step(ns, order[1], tenancyv1alpha1.StepReady, nil, ficID)

	raIDs, err := assignRoles(s.begin(ctx, ns, order[2]), a, sub, scopes, roles(ob), CheckRole, mi.principalID, ok)
	if err != nil {
		return failed(2, err, raIDs...)
	}
	s.step(ns, order[2], tenancyv1alpha1.StepReady, nil, raIDs...)

	saID, created, err := s.ensureServiceAccount(s.begin(ctx, ns, order[3]), ns, saName, mi)
	if err != nil {
		return failed(3, err)
	}
	ok(KindServiceAccount, saID, created)
	s.step(ns, order[3], tenancyv1alpha1.StepReady, nil, saID)

	idID, created, err := s.ensureIdentity(s.begin(ctx, ns, order[4]), ns, saName, sub, mi)
	if err != nil {
		return failed(4, err)
	}
	ok(KindIdentity, idID, created)
	s.step(ns, order[4], tenancyv1alpha1.StepReady, nil, idID)

	if ob.Apps != nil {
		if err := s.onboardApps(ctx, a, ns, issuer, scopes, ok, func(i int, err error, ids ...string) error { return failed(5+i, err, ids...) }); err != nil {
			return err
		}
	}

	if err := s.requestedGroups(ctx, a, ns, mi, ok); err != nil {
		return err
	}

	// What was created for an earlier spec (a removed role or group, a
	// renamed ServiceAccount) goes.
	return s.offboard(ctx, ns, keep)
}

// onboardApps gives the namespace's pods their own workload identity: a
// second managed identity, federated with the apps' ServiceAccount, with
// data-plane roles only, and that ServiceAccount annotated for the
// azure-workload-identity webhook. failed(i, ...) reports the i-th app step.
func (s *pass) onboardApps(ctx context.Context, a *azure, ns, issuer string, scopes []string,
	ok func(kind, id string, created bool), failed func(i int, err error, ids ...string) error) error {
	ob, t := s.t.Spec.Onboarding, s.t
	sub, idRG, saName := subscriptionOf(t), identityGroupOf(ob), appServiceAccountOf(ob.Apps)
	mi, err := a.ensureIdentity(s.begin(ctx, ns, tenancyv1alpha1.StepAppManagedIdentity), idRG, AppIdentityName(ns), location(ob), t.Name)
	if err != nil {
		return failed(0, err)
	}
	ok(KindManagedIdentity, mi.id, mi.created)
	s.step(ns, tenancyv1alpha1.StepAppManagedIdentity, tenancyv1alpha1.StepReady, nil, mi.id)

	ficID, created, err := a.ensureFederatedCredential(s.begin(ctx, ns, tenancyv1alpha1.StepAppFederatedCredential), idRG, AppIdentityName(ns), AppIdentityName(ns), issuer, Subject(ns, saName))
	if err != nil {
		return failed(1, err)
	}
	ok(KindFederatedCredential, ficID, created && !mi.created)
	s.step(ns, tenancyv1alpha1.StepAppFederatedCredential, tenancyv1alpha1.StepReady, nil, ficID)

	raIDs, err := assignRoles(s.begin(ctx, ns, tenancyv1alpha1.StepAppRoleAssignments), a, sub, scopes, ob.Apps.Roles, CheckAppRole, mi.principalID, ok)
	if err != nil {
		return failed(2, err, raIDs...)
	}
	s.step(ns, tenancyv1alpha1.StepAppRoleAssignments, tenancyv1alpha1.StepReady, nil, raIDs...)

	saID, created, err := s.ensureServiceAccount(s.begin(ctx, ns, tenancyv1alpha1.StepAppServiceAccount), ns, saName, mi)
	if err != nil {
		return failed(3, err)
	}
	ok(KindServiceAccount, saID, created)
	s.step(ns, tenancyv1alpha1.StepAppServiceAccount, tenancyv1alpha1.StepReady, nil, saID)
	return nil
}

// assignRoles grants principal each role (checked by check, which the spec
// check ran already) on each scope, recording what it created through ok; it
// returns the assignments' IDs, those made so far on an error.
func assignRoles(ctx context.Context, a *azure, sub string, scopes, roles []string, check func(string) (string, error),
	principal string, ok func(kind, id string, created bool)) ([]string, error) {
	var ids []string
	for _, scope := range scopes {
		for _, role := range roles {
			guid, err := check(role)
			if err != nil {
				return ids, err
			}
			rd := RoleDefinitionID(sub, guid)
			id, ours, err := a.ensureRoleAssignment(ctx, scope, RoleAssignmentName(scope, principal, rd), role, rd, principal)
			if err != nil {
				return ids, err
			}
			if id != "" {
				ok(KindRoleAssignment, id, ours)
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

func appServiceAccountOf(apps *tenancyv1alpha1.TenantOnboardingApps) string {
	if apps.ServiceAccountName != "" {
		return apps.ServiceAccountName
	}
	return DefaultAppServiceAccount
}

// offboard deletes the namespace's recorded items (ns "" for resource groups)
// not in keep, in dependency order, stopping at the first that must be waited
// for.
func (s *pass) offboard(ctx context.Context, ns string, keep map[string]bool) error {
	for _, c := range s.rec.of(ns) {
		if keep[strings.ToLower(c.ID)] {
			continue
		}
		done, err := s.removeTraced(ctx, c)
		if err != nil {
			var se *StepError
			if !errors.As(err, &se) {
				return err
			}
			s.step(ns, stepOfKind(c.Kind), tenancyv1alpha1.StepFailed, err, c.ID)
			return nil
		}
		if !done {
			s.pending = true
			s.step(ns, stepOfKind(c.Kind), tenancyv1alpha1.StepDeleting, nil, c.ID)
			s.steps[len(s.steps)-1].Message = s.keptFor(ctx, ns)
			return nil
		}
		s.rec.remove(c.Kind, c.ID)
	}
	return nil
}

// keptFor says why the namespace's Identity or ServiceAccount, deleted, is
// still there: the objects of the namespace that still hold them, by kind
// and count. It also notes the namespace in s.waiting for the condition.
func (s *pass) keptFor(ctx context.Context, ns string) string {
	const generic = "deleted; the Identity controller keeps it while resources of the namespace still need it"
	if s.r.InUse == nil {
		return generic
	}
	holders, err := s.r.InUse(ctx, ns)
	if err != nil {
		return generic
	}
	if holders, err = s.usersOfKept(ctx, ns, holders); err != nil || len(holders) == 0 {
		return generic
	}
	counts := map[string]int{}
	for _, h := range holders {
		counts[h.Kind]++
	}
	var byKind []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		byKind = append(byKind, fmt.Sprintf("%d %s", counts[k], k))
	}
	var kept []string
	for _, c := range s.rec.of(ns) {
		if c.Kind == KindIdentity || c.Kind == KindServiceAccount {
			kept = append(kept, c.Kind+" "+c.ID)
		}
	}
	what := fmt.Sprintf("namespace %s: %s still exist (%s kept for them)", ns, strings.Join(byKind, ", "), strings.Join(kept, " and "))
	s.waiting = append(s.waiting, what)
	return fmt.Sprintf("deleted; kept while %d object(s) of namespace %s still hold it: %s. Delete them (their Azure resources are deleted with the namespace's identity) "+
		"or annotate them aztenant.io/reconcile-policy: detach-on-delete to leave their resources in Azure", len(holders), ns, strings.Join(byKind, ", "))
}

// usersOfKept keeps, of the namespace's holders, those that use an Identity
// onboarding created there or one acting with a ServiceAccount it created:
// a resource served by another Identity holds neither.
func (s *pass) usersOfKept(ctx context.Context, ns string, holders []identity.Holder) ([]identity.Holder, error) {
	ids, sas := map[string]bool{}, map[string]bool{}
	for _, c := range s.rec.of(ns) {
		_, name, _ := strings.Cut(c.ID, "/")
		switch c.Kind {
		case KindIdentity:
			ids[name] = true
		case KindServiceAccount:
			sas[name] = true
		}
	}
	var list identityv1alpha1.IdentityList
	if err := s.r.APIReader.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for _, id := range list.Items {
		if sas[id.Spec.ServiceAccountName] {
			ids[id.Name] = true
		}
	}
	return slices.DeleteFunc(holders, func(h identity.Holder) bool { return !ids[h.Identity] }), nil
}

func stepOfKind(kind string) string {
	switch kind {
	case KindResourceGroup:
		return tenancyv1alpha1.StepResourceGroups
	case KindRoleAssignment:
		return tenancyv1alpha1.StepRoleAssignments
	default:
		return kind
	}
}

// remove deletes one recorded item; done is false while it is still there.
func (s *pass) remove(ctx context.Context, c tenancyv1alpha1.CreatedResource) (bool, error) {
	switch c.Kind {
	case KindIdentity:
		return s.deleteObject(ctx, &identityv1alpha1.Identity{}, c.ID)
	case KindServiceAccount:
		return s.deleteObject(ctx, &corev1.ServiceAccount{}, c.ID)
	}
	rid, err := arm.ParseResourceID(c.ID)
	if err != nil {
		s.event(corev1.EventTypeWarning, "Forgotten", "recorded ID %q is not an ARM ID: forgotten", c.ID)
		return true, nil
	}
	a, err := s.azureFor(rid.SubscriptionID)
	if err != nil {
		return false, err
	}
	switch c.Kind {
	case KindRoleAssignment:
		err = a.deleteRoleAssignment(ctx, c.ID)
	case KindFederatedCredential:
		err = a.deleteFederatedCredential(ctx, rid.ResourceGroupName, rid.Parent.Name, rid.Name)
	case KindManagedIdentity:
		err = a.deleteIdentity(ctx, rid.ResourceGroupName, rid.Name)
	case KindResourceGroup:
		var kept []string
		kept, err = a.deleteResourceGroupIfEmpty(ctx, rid.ResourceGroupName)
		if err == nil && len(kept) > 0 {
			s.event(corev1.EventTypeWarning, "ResourceGroupKept",
				"resource group %s was created by onboarding but now holds %d resource(s) it did not create (%s): left in place", c.ID, len(kept), kept[0])
		}
	}
	if err != nil {
		return false, err
	}
	if c.Kind != KindResourceGroup {
		s.event(corev1.EventTypeNormal, "Deleted", "deleted %s %s", c.Kind, c.ID)
	}
	return true, nil
}

// releaseUnnamed drops the Identity controller's protection finalizer from a
// ServiceAccount that no Identity of its namespace names.
func (s *pass) releaseUnnamed(ctx context.Context, sa *corev1.ServiceAccount) error {
	if !controllerutil.ContainsFinalizer(sa, identity.ProtectionFinalizer) {
		return nil
	}
	var ids identityv1alpha1.IdentityList
	if err := s.r.APIReader.List(ctx, &ids, client.InNamespace(sa.Namespace)); err != nil {
		return err
	}
	for _, id := range ids.Items {
		if id.Spec.ServiceAccountName == sa.Name {
			return nil
		}
	}
	base := sa.DeepCopy()
	controllerutil.RemoveFinalizer(sa, identity.ProtectionFinalizer)
	return client.IgnoreNotFound(s.r.Client.Patch(ctx, sa, client.MergeFrom(base)))
}

// deleteObject deletes a ServiceAccount or Identity onboarding created (the
// label must still say so) and reports whether it is gone; the Identity
// controller's protection finalizer holds both while resources of the
// namespace still need them.
func (s *pass) deleteObject(ctx context.Context, obj client.Object, id string) (bool, error) {
	ns, name, _ := strings.Cut(id, "/")
	if err := s.r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
	if obj.GetLabels()[LabelOnboardedBy] != s.t.Name {
		return true, nil // someone took it over: not ours to delete any more
	}
	if sa, ok := obj.(*corev1.ServiceAccount); ok {
		// An account no Identity names any more (the one a migration left
		// behind) needs no protection: the Identity controller only tends
		// the accounts Identities name.
		if err := s.releaseUnnamed(ctx, sa); err != nil {
			return false, err
		}
	}
	if obj.GetDeletionTimestamp().IsZero() {
		if err := s.r.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		log.FromContext(ctx).Info("offboarding deleted", "object", id)
	}
	return false, nil
}
