package reconcilers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/comparison"
)

// This file is the whole contract between the generic reconciler and a kind:
// Kind, the Facts it declares as data and the Hooks it may plug in. Nothing
// else of a kind is looked for: the reconciler never asks a kind, by type
// assertion, whether it implements something more. A new fact is a field of
// Facts, a new behaviour a field of Hooks, each documented here and read by
// the reconciler.

// Kind adapts one Azure resource type to the generic reconciler. Its methods
// are pure (no I/O) and cheap; the reconciler may call them at every step.
type Kind interface {
	// New returns an empty object of the kind.
	New() azurev1alpha1.Resource
	// Facts is what the kind is in ARM.
	Facts() Facts
	// Desired is the ARM PUT body for the object's spec. resolved is what
	// Hooks.Resolve returned for the object, nil for a kind without Resolve;
	// given nil, a kind with Resolve builds what it can without (a reference
	// by ARM ID). It stays pure.
	Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error)
	// Observe copies ARM's read-only outputs from a GET body into status.
	Observe(obj azurev1alpha1.Resource, actual map[string]any)
	// Hooks is the kind's behaviour where Azure behaves specially; the zero
	// Hooks for a kind that is only its Facts, Desired and Observe.
	Hooks() Hooks
}

// Facts are what a kind declares about its ARM resource, as data.
type Facts struct {
	// ResourceType is the ARM type, such as Microsoft.Storage/storageAccounts.
	ResourceType string
	// APIVersion is the ARM api-version the kind speaks.
	APIVersion string
	// OwnerKind is the kind spec.owner.name refers to by default; the zero
	// value for kinds whose parent is the subscription (resource groups). An
	// object may name another (its OwnerGroupKind method), among OwnerKinds.
	OwnerKind schema.GroupKind
	// OwnerKinds are the other kinds an object may name as its owner (a role
	// assignment's scope): the controller watches each one served, so an
	// object waiting for its owner proceeds as soon as the owner is Ready.
	OwnerKinds []schema.GroupKind
	// WriteOnly lists dotted paths of the PUT body ("properties.administratorLoginPassword")
	// that ARM never returns (a password), so they must not count as drift. A
	// digest of their values (HMAC keyed with the UIDs of the Secrets Hooks.References
	// names, see writeOnlyKey) is kept in status.writeOnlyHash instead: when it
	// changes (the password's Secret was rotated) the resource is written again.
	WriteOnly []string
	// CarriedOnPut lists dotted body paths ("properties.subnets") the spec does not
	// manage but a PUT must carry: ARM takes the PUT's value as the whole set and
	// deletes what it leaves out (a virtual network's subnets, managed by their own
	// kind). Just before a PUT the reconciler copies each from the GET when desired
	// lacks it; being absent from desired, they never count as drift.
	CarriedOnPut []string
	// WithParent: Azure creates the resource with its parent, under a fixed name, and has
	// no DELETE for it (a storage account's blobServices/default). The object manages
	// the one that exists without adopt, and deleting the object leaves it in Azure, to
	// go with its parent.
	WithParent bool
	// OpenSets are dotted body paths of named lists ("properties.agentPoolProfiles")
	// where Azure may hold elements the spec does not name, managed elsewhere (agent
	// pools of their own kind): the named ones are compared, the others are not drift.
	OpenSets []string
	// OutsideGroups are dotted body paths ("properties.roleDefinitionId") of ARM
	// IDs naming something ARM keeps outside resource groups, at subscription or
	// directory scope (a role definition), which the kind checks itself (Verify).
	// Every other ARM ID in the body must lie in the Tenant's resource groups or
	// be shared with it (references.go); these only in its subscriptions.
	OutsideGroups []string
	// Names are the body's fields holding names, not ARM IDs, that Azure turns
	// into resources or destinations: a resource group it creates (an AKS
	// cluster's properties.nodeResourceGroup), a subscription given by ID, an
	// account it writes to by name (an Event Hubs capture's Data Lake
	// account). The generator keeps the list, with a reason per field
	// (api/kinds.yaml, names:). Before any ARM call each value is bounded by
	// the Tenant like the ARM ID it stands for (names.go); a refusal is
	// Ready=False TenantPolicyDenied naming the field and the value.
	Names []NameRef

	// Normalize, NotReturned, Forced and OpenValues say how Azure answers a
	// write where it does not echo the spec (the comparison applies them,
	// reconcilers/comparison; issue 27, the design in
	// docs/design/azure-answers.md). Their paths are dotted body paths as in
	// Names: lists on the way are crossed, "*" crosses the values of a map.
	// checkKind refuses a path no spec of the kind can reach.

	// Normalize names, by path, the entry of the normalisation table
	// (reconcilers/comparison, normalize.go) under which Azure's answer means
	// what the spec says though spelled otherwise: a policy's XML re-indented,
	// a location's display name, an enum answered as its index. The values
	// compare equal when they are equal as the comparison compares them or
	// equal under the entry.
	Normalize map[string]Normalizer
	// NotReturned lists the paths Azure takes on a write but leaves out of its
	// answer (Cosmos DB's create options, a web app's app settings): absent from
	// the answer they are no difference; present, they are compared.
	NotReturned []string
	// Forced maps a path to the value Azure keeps there whatever a write says
	// (Key Vault's soft delete stays on): a spec giving another value is
	// refused before anything is written (Ready=False InvalidSpec; generated
	// kinds also refuse it in the CRD), since no write could make Azure agree.
	Forced map[string]any
	// OpenValues maps the path of a list to the elements Azure adds to it on
	// its own (Cosmos DB's excluded path /"_etag"/?): such an element in the
	// answer that the spec does not hold is no difference. Unlike OpenSets,
	// any other element Azure holds beyond the spec's still is.
	OpenValues map[string][]any
}

// Normalizer names the entry of the comparison's normalisation table that
// applies at a path (Facts.Normalize): reconcilers/comparison holds the table.
type Normalizer = comparison.Normalizer

// The entries of the normalisation table a kind may name in Facts.Normalize
// (comparison.NormalizeCase and the others say what each one means).
const (
	NormalizeCase             = comparison.NormalizeCase
	NormalizeLocation         = comparison.NormalizeLocation
	NormalizeXML              = comparison.NormalizeXML
	NormalizeXMLFragment      = comparison.NormalizeXMLFragment
	NormalizeTrimSlash        = comparison.NormalizeTrimSlash
	NormalizeAPIMScope        = comparison.NormalizeAPIMScope
	NormalizeRoleDefinitionID = comparison.NormalizeRoleDefinitionID
	NormalizeIntEnum          = comparison.NormalizeIntEnum
	NormalizeCIDR             = comparison.NormalizeCIDR
)

// Hooks are a kind's hand-written behaviour, for what Azure does that Facts
// cannot say. Every field is optional: nil means the kind has none, and the
// reconciler does what the field's comment says it does without. Hooks, like
// Kind's methods, are pure unless their comment says what they may read.
type Hooks struct {
	// Location is the object's Azure location, for the guards (the Tenant's
	// allowed locations). Nil: the resource has no location of its own (a
	// child resource, a role assignment) and the guards see none.
	Location func(obj azurev1alpha1.Resource) string

	// ARMID is the object's ARM ID under its parent's (parentID), for a kind
	// whose ID is not the usual parent + type + name: blob containers under
	// the implied blobServices/default, role assignments named by a UUID
	// derived from the object. Nil: the usual ID (armIDOf).
	ARMID func(obj azurev1alpha1.Resource, parentID string) string

	// Resolve reads the values the PUT body needs that are kept outside the
	// spec, in Secrets, ConfigMaps or other objects of the object's own
	// namespace (an administrator password, the ARM ID of a referenced
	// identity); the reconciler passes them to Desired. Nil: Desired gets nil.
	//
	// The reader only answers for the object's namespace. An error (a missing
	// Secret or key) leaves the object Ready=False with reason
	// ReferenceNotFound and the error's message, which must name what is
	// missing but never carry a resolved value; resolved values never reach
	// status, events or logs. An object waiting for a reference proceeds when
	// it appears (see References for which changes enqueue it).
	Resolve func(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error)

	// References names the Secrets and ConfigMaps of the namespace Resolve
	// reads, including those that do not exist yet. The controller indexes
	// the names, so a change to one of them reconciles exactly the objects
	// that read it, Ready ones included (a rotated password must be written),
	// and leaves the others alone; the Secrets named also key the digest of
	// Facts.WriteOnly. Nil (for a kind with Resolve): a change to any Secret
	// or ConfigMap of the namespace enqueues the kind's objects that are not
	// Ready, so a waiting one proceeds, and a Ready one is not written again.
	References func(obj azurev1alpha1.Resource) []Reference

	// Equivalent reports whether observed satisfies desired at path (dotted,
	// as in Facts.WriteOnly), for a string property ARM reports in a more
	// precise form than the one requested (Redis answers "6.0.20" to "6"),
	// which would otherwise be drift at every sync. It is asked only when
	// they differ. Nil: only equal values (up to the comparison's casing and
	// location rules, reconcilers/comparison) match.
	Equivalent func(path, desired, observed string) bool

	// Verify reads Azure before anything is written, to refuse what the spec
	// alone cannot show: a role assignment naming a custom role reads the
	// role's definition and refuses a privileged one. It runs at every
	// reconcile, after the guards and before the resource is read or written,
	// and only while the object is not being deleted; get reads with the
	// object's own identity.
	//
	// An error with a Reason() method (such as PolicyDenied) stops the object
	// there, Ready=False with that reason (of the class readyReasons gives
	// it) and the error's message, as a guard's denial does, and it is looked
	// at again a few minutes later (a transient reason, such as GuardFailed,
	// sooner). Any other error is an ARM failure (AuthorizationFailed when the
	// identity may not read what Verify needs, AzureUnavailable ...) and is
	// retried as one. Nil: nothing is checked beyond the guards.
	Verify func(ctx context.Context, get ARMGetter, obj azurev1alpha1.Resource, armID string) error

	// SecretDestinations maps the names of the kind's secret outputs (keys,
	// connection strings) to where spec.operatorSpec wants them; Secrets
	// fetches them through call (an ARM action such as listKeys), and is
	// called only when a destination or a CEL secret expression asks for
	// them. Set both or neither. Nil: the kind has no secret outputs (CEL
	// secret expressions see none).
	SecretDestinations func(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination
	Secrets            func(ctx context.Context, call ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error)

	// ConfigMapDestinations maps the names of the kind's non-secret outputs
	// (host names, client IDs) to where spec.operatorSpec wants them;
	// ConfigMapValues reads them from the object's status. Set both or
	// neither. Nil: the kind has no ConfigMap outputs.
	ConfigMapDestinations func(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination
	ConfigMapValues       func(obj azurev1alpha1.Resource) map[string]string
}

// Reference names a Secret or ConfigMap of the object's namespace.
type Reference struct {
	// Kind is ReferenceSecret or ReferenceConfigMap.
	Kind string
	Name string
}

// Kinds of Reference.
const (
	ReferenceSecret    = "Secret"
	ReferenceConfigMap = "ConfigMap"
)

// ActionCaller performs a POST action on the resource (listKeys and the like)
// with the resource's identity, returning the decoded JSON body.
type ActionCaller func(ctx context.Context, action string) (map[string]any, error)

// ARMGetter reads an ARM ID at an api-version with the object's own identity
// (never the operator's): the decoded body, or nil when it does not exist.
type ARMGetter func(ctx context.Context, id, apiVersion string) (map[string]any, error)

// checkKind refuses a kind that breaks the contract: facts missing, hooks
// that go in pairs set alone, or facts about Azure's answers that name no
// entry of the normalisation table or a path no spec reaches (checkAnswerFacts).
func checkKind(k Kind) error {
	f, h := k.Facts(), k.Hooks()
	switch {
	case f.ResourceType == "" || f.APIVersion == "":
		return fmt.Errorf("kind %T: Facts.ResourceType and Facts.APIVersion are required", k)
	case (h.Secrets == nil) != (h.SecretDestinations == nil):
		return fmt.Errorf("kind %s: Hooks.Secrets and Hooks.SecretDestinations go together", f.ResourceType)
	case (h.ConfigMapValues == nil) != (h.ConfigMapDestinations == nil):
		return fmt.Errorf("kind %s: Hooks.ConfigMapValues and Hooks.ConfigMapDestinations go together", f.ResourceType)
	}
	if err := checkAnswerFacts(k); err != nil {
		return fmt.Errorf("kind %s: %w", f.ResourceType, err)
	}
	return nil
}
