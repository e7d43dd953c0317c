package reconcilers

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Kind adapts one Azure resource type to the generic reconciler. Its methods
// are pure: no I/O.
type Kind interface {
	// New returns an empty object of the kind.
	New() azurev1alpha1.Resource
	// ResourceType is the ARM type, such as Microsoft.Storage/storageAccounts.
	ResourceType() string
	// APIVersion is the ARM api-version the kind speaks.
	APIVersion() string
	// OwnerKind is the kind spec.owner.name refers to; the zero value for kinds
	// whose parent is the subscription (resource groups).
	OwnerKind() schema.GroupKind
	// Desired is the ARM PUT body for the object's spec.
	Desired(obj azurev1alpha1.Resource) (map[string]any, error)
	// Observe copies ARM's read-only outputs from a GET body into status.
	Observe(obj azurev1alpha1.Resource, actual map[string]any)
}

// OwnerKinder is implemented by kinds whose objects may name owners of
// several kinds (a role assignment's scope): the controller watches each kind
// served, so an object waiting for its owner proceeds as soon as the owner is
// Ready. OwnerKind stays the default owner.
type OwnerKinder interface {
	OwnerKinds() []schema.GroupKind
}

// Located is implemented by kinds whose resources have an Azure location, so
// the tenancy guard can check it.
type Located interface {
	Location(obj azurev1alpha1.Resource) string
}

// CompareIgnorer is implemented by kinds with write-only properties (such as a
// password) that ARM never returns and so must not count as drift. A digest of
// their values (HMAC keyed with the UIDs of the Secrets they come from, see
// writeOnlyKey) is kept in status.writeOnlyHash instead: when it changes (the
// password's Secret was rotated) the resource is written again.
type CompareIgnorer interface {
	// IgnoreOnCompare lists dotted paths in the PUT body, such as
	// "properties.administratorLoginPassword".
	IgnoreOnCompare() []string
}

// Resolver is implemented by kinds whose PUT body needs values kept outside
// the spec, in Secrets, ConfigMaps or other objects of the object's own
// namespace (an administrator password, the ARM ID of a referenced identity).
// The reconciler calls Resolve and then DesiredWith instead of Desired.
//
// The reader only answers for the object's namespace. A Resolve error (a
// missing Secret or key) leaves the object Ready=False with reason
// ReferenceNotFound and the error's message, which must name what is missing
// but never carry a resolved value; resolved values never reach status,
// events or logs.
type Resolver interface {
	Resolve(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error)
	// DesiredWith is Desired given Resolve's values. It stays pure.
	DesiredWith(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error)
}

// Referencer is implemented by Resolvers that read Secrets or ConfigMaps of
// the namespace. The controller indexes the names, so a change to one of them
// reconciles exactly the objects that read it, Ready ones included (a rotated
// password must be written), and leaves the others alone.
type Referencer interface {
	// References names what Resolve reads, including what does not exist yet.
	References(obj azurev1alpha1.Resource) []Reference
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

// Equivalencer is implemented by kinds where ARM reports a string property
// in a more precise form than the one requested (Redis answers "6.0.20" to
// "6"), which would otherwise be drift at every sync.
type Equivalencer interface {
	// Equivalent reports whether observed satisfies desired at path (dotted,
	// as in IgnoreOnCompare); it is asked only when they differ.
	Equivalent(path, desired, observed string) bool
}

// SecretSource is implemented by kinds that export secrets (keys, connection
// strings) obtained with an ARM action such as listKeys.
type SecretSource interface {
	// SecretDestinations maps output names to where the user wants them.
	SecretDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination
	// Secrets fetches the secret outputs through call.
	Secrets(ctx context.Context, call ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error)
}

// ConfigMapSource is implemented by kinds that export non-secret outputs (host
// names, client IDs) to ConfigMaps.
type ConfigMapSource interface {
	ConfigMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination
	// ConfigMapValues reads the outputs from the object's status.
	ConfigMapValues(obj azurev1alpha1.Resource) map[string]string
}

// ActionCaller performs a POST action on the resource (listKeys and the like)
// with the resource's identity, returning the decoded JSON body.
type ActionCaller func(ctx context.Context, action string) (map[string]any, error)

// Facts are what a kind declares about its ARM body as data: a new fact is a field
// here, read by the reconciler, not another optional interface.
type Facts struct {
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
}

// factsOf is what k declares, or no facts.
func factsOf(k Kind) Facts {
	if d, ok := k.(Declarer); ok {
		return d.Facts()
	}
	return Facts{}
}

// Declarer is implemented by kinds that declare Facts (kindgen's adapters).
type Declarer interface {
	Facts() Facts
}
