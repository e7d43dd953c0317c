package emulator

import (
	"encoding/json"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/emulator/armpath"
)

// The types the router itself knows of, as armpath spells them.
const (
	typeSubscription   = armpath.TypeSubscription
	typeResourceGroup  = armpath.TypeResourceGroup
	typeRoleAssignment = armpath.TypeRoleAssignment
	typeRoleDefinition = armpath.TypeRoleDefinition
)

// ownAnswers are the types (lower-cased) whose hand-written behaviour answers them whole
// though kindgen writes their kinds: Azure's examples are neither applied nor perturbed,
// as before the kinds moved. Those behaviours hold what Azure answers and an example
// cannot: a storage account's globally unique name (StorageAccountAlreadyTaken), the
// endpoints derived from its name and its keys (azure-rest-api-specs, storage
// StorageAccountCreate.json and StorageAccountListKeys.json); a cache's host name, ports
// and keys (redis RedisCacheCreate.json, RedisCacheListKeys.json); a PostgreSQL flexible
// server's host name (<name>.postgres.database.azure.com), its state and its write-only
// administrator password (postgresql ServersCreate.json documents no answer, so the
// examples would only echo); an AKS cluster's pools (one set with its agentPools
// children), API server FQDN, node resource group and kubeconfigs (containerservice
// ManagedClustersCreate_*.json; the kubeconfigs as Managed Clusters - List Cluster Admin
// Credentials answers them, learn.microsoft.com/rest/api/aks/managed-clusters):
// type_storage.go, type_redis.go, type_postgres.go and type_managedcluster.go; a role
// assignment's scope, checked against the caller's rights and the principal's replication
// (authorization RoleAssignments_CreateForResourceGroup.json and its siblings echo the body): type_roleassignment.go.
var ownAnswers = map[string]bool{typeStorageAccount: true, "microsoft.cache/redis": true,
	"microsoft.dbforpostgresql/flexibleservers": true, "microsoft.containerservice/managedclusters": true,
	typeRoleAssignment: true}

// typeBehaviour customises one resource type; types without one behave generically (the
// body is stored as sent, with id, name, type and provisioningState added).
type typeBehaviour struct {
	fullType string
	// generated: a kind kindgen writes (zz_generated_types.go), which answers from
	// Azure's examples and is perturbed when those switches are on.
	generated bool
	lro       LROConfig // defaults; Config.LRO and SetLRO override them
	// shapes are a generated kind's status codes per operation, from its SDK client
	// (shapes.go); nil for the hand-written types' own shapes.
	shapes *sdkShapes
	// prepare validates a write and computes read-only properties. It runs under the state
	// lock, so it may look at other resources.
	prepare func(w *writeRequest) *apiError
	// stored and removed keep indexes (directory, role grants) in step with the tree.
	stored  func(e *Emulator, r *resource)
	removed func(e *Emulator, r *resource)
	// actions are POST operations on a resource, by lower-cased name (listkeys ...).
	actions map[string]actionFunc
	// answerType, when set, is the type as the provider spells it in its
	// answers (Microsoft.Cache/Redis, in the type and in the id), whatever
	// casing the request used; displayLocation answers the location by its
	// display name ("West Europe"), as Redis does.
	answerType      string
	displayLocation bool
	// writeOnly are body paths (properties.administratorLoginPassword) Azure accepts in a
	// write and never stores or returns.
	writeOnly []string
	// nameAsPath: Azure answers the resource's name as its path below the provider
	// ("site/slot"), as the type's documented examples do (kindgen reads it from their
	// answers, emulator/answers: childName); otherwise its own name.
	nameAsPath bool
	// noDelete: Azure creates the resource with its parent and has no DELETE for it
	// (blobServices/default); it goes with the parent.
	noDelete bool
	// beforeDelete refuses a DELETE Azure refuses (a subnet in use). It runs under the
	// state lock.
	beforeDelete func(e *Emulator, r *resource) *apiError
}

// actionFunc runs a POST action on r under the state lock and returns status and body.
type actionFunc func(e *Emulator, r *resource, body map[string]any) (int, any, *apiError)

// builtinBehaviours is the table of emulated types, one small file each.
func builtinBehaviours() []*typeBehaviour {
	return append([]*typeBehaviour{
		resourceGroupBehaviour(),
		userAssignedIdentityBehaviour(),
		federatedCredentialBehaviour(),
		roleAssignmentBehaviour(),
		roleDefinitionBehaviour(),
		storageAccountBehaviour(),
		redisBehaviour(),
		postgresServerBehaviour(),
		postgresDatabaseBehaviour(),
		postgresFirewallRuleBehaviour(),
		managedClusterBehaviour(),
		agentPoolBehaviour(),
		managedEnvironmentBehaviour(),
	}, networkBehaviours()...)
}

// writeTarget is where a write lands.
type writeTarget struct {
	id, fullType, name string
	parent             *resource
}

// writeRequest is what a behaviour's prepare sees: the desired body (to validate and
// complete), the stored resource on update, and the subscription's tenant.
type writeRequest struct {
	e              *Emulator
	target         writeTarget
	body           map[string]any
	props          map[string]any
	existing       *resource // nil on create
	subscriptionID string
	tenantID       string
}

// keep copies a read-only property from the stored resource, or computes it on create, so
// values such as an identity's clientId never change across PUTs.
func (w *writeRequest) keep(name string, compute func() any) {
	if w.existing != nil {
		if v, ok := w.existing.props()[name]; ok {
			w.props[name] = v
			return
		}
	}
	w.props[name] = compute()
}

// location returns the body's location, lower-cased and without spaces as ARM normalises it.
func (w *writeRequest) location() string {
	l, _ := w.body["location"].(string)
	return strings.ToLower(strings.ReplaceAll(l, " ", ""))
}

func (w *writeRequest) requireLocation() *apiError {
	if w.location() == "" {
		return badRequest("LocationRequired", "The location property is required for this definition.")
	}
	w.body["location"] = w.location()
	return nil
}

// str reads a string property.
func str(m map[string]any, name string) string {
	s, _ := m[name].(string)
	return s
}

// intValue reads a JSON number property.
func intValue(m map[string]any, name string) (int64, bool) {
	switch v := m[name].(type) {
	case json.Number:
		i, err := v.Int64()
		return i, err == nil
	case float64:
		return int64(v), true
	}
	return 0, false
}

// spell writes body's type, id and location as the provider answers them.
func (b *typeBehaviour) spell(body map[string]any) {
	if b.answerType != "" {
		body["type"] = b.answerType
		if id, ok := body["id"].(string); ok {
			// The id's last type segment: .../providers/Microsoft.Cache/redis/name.
			seg := "/" + b.answerType[strings.LastIndex(b.answerType, "/")+1:] + "/"
			if i := strings.LastIndex(strings.ToLower(id), strings.ToLower(seg)); i >= 0 {
				body["id"] = id[:i] + seg + id[i+len(seg):]
			}
		}
	}
	if l, ok := body["location"].(string); ok && b.displayLocation {
		body["location"] = azurev1alpha1.DisplayLocation(l)
	}
}
