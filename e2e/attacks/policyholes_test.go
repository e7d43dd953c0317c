package attacks_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/policy"
	"github.com/aztenant/aztenant/reconcilers"
)

// This file attacks the policy library's coverage and arithmetic, as a
// namespace editor (Kubernetes' aggregated edit role, with the chart's user
// roles aggregated into it) under the example constraints users get: one
// test per class of hole found in the demo. Each is refused by the
// operator's policy guard before any ARM call.

// userRoles aggregates what the chart's user roles grant (the hand-written
// kinds of templates/user-roles.yaml and files/generated-user-roles.yaml)
// into Kubernetes' edit role, as installing the chart does.
func userRoles(t *testing.T, a *attack) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "charts", "aztenant", "files", "generated-user-roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]string{}
	if err := yaml.Unmarshal(data, &groups); err != nil {
		t.Fatal(err)
	}
	groups["resources.aztenant.io"] = append(groups["resources.aztenant.io"], "resourcegroups")
	groups["storage.aztenant.io"] = append(groups["storage.aztenant.io"], "storageaccounts")
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aztenant-attacks-edit", Labels: map[string]string{
		"rbac.authorization.k8s.io/aggregate-to-edit": "true",
	}}}
	for g, resources := range groups {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: resources,
			Verbs: []string{"create", "delete", "deletecollection", "patch", "update", "get", "list", "watch"}})
	}
	if err := a.Client.Create(t.Context(), role); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// editor is the attacker namespace's editor, once kube-controller-manager
// has aggregated the chart's user roles into edit.
func editor(t *testing.T, a *attack) *developer {
	t.Helper()
	userRoles(t, a)
	d := newDeveloper(t, a, a.attacker)
	stacktest.Until(t, "the editor may create aztenant kinds", func() bool {
		for _, r := range [][2]string{{"network.aztenant.io", "networksecuritygroupssecurityrules"}, {"documentdb.aztenant.io", "sqlroledefinitions"}, {"sql.aztenant.io", "servers"}} {
			review, err := d.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(t.Context(), &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: a.attacker, Verb: "create", Group: r[0], Resource: r[1]},
			}}, metav1.CreateOptions{})
			if err != nil || !review.Status.Allowed {
				return false
			}
		}
		return true
	})
	return d
}

// create writes obj (of the attacker's namespace, from YAML) as the editor:
// the API server admits it (no Gatekeeper in this cluster), so what stops it
// is the operator's policy guard.
func (d *developer) create(t *testing.T, a *attack, doc string) azurev1alpha1.Resource {
	t.Helper()
	obj := manifest(t, a, a.attacker, doc)
	if err := d.c.Create(t.Context(), obj); err != nil {
		t.Fatalf("the editor could not create %s %s: %v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	return obj
}

// policyDenied waits for each object's PolicyDenied naming want, then
// checks that nothing was written in Azure and no call touched the object.
func (a *attack) policyDenied(t *testing.T, obj azurev1alpha1.Resource, path string, want ...string) {
	t.Helper()
	a.denied(t, obj, policy.ReasonPolicyDenied, want...)
	a.noCall(t, path)
}

// SSH open to the internet in two halves: 0.0.0.0/1 and 128.0.0.0/1 are no
// /0, so the rule once passed the management-port check.
func TestAttack_PolicyHoleSSHFromTwoHalves(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phssh")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	a.ready(t, manifest(t, a, a.attacker, `
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkSecurityGroup
metadata: {name: nsg}
spec:
  owner: {name: `+rg+`}
  location: westeurope
`))
	d := editor(t, a)
	a.begin()
	rule := d.create(t, a, `
apiVersion: network.aztenant.io/v1alpha1
kind: NetworkSecurityGroupsSecurityRule
metadata: {name: ssh}
spec:
  owner: {name: nsg}
  priority: 100
  access: Allow
  direction: Inbound
  protocol: Tcp
  sourcePortRange: "*"
  sourceAddressPrefixes: ["0.0.0.0/1", "128.0.0.0/1"]
  destinationAddressPrefix: "*"
  destinationPortRange: "22"
`)
	a.policyDenied(t, rule, "/securityRules/ssh", "no-internet-management-ports",
		"allows inbound traffic from the internet (sources 0.0.0.0/1, 128.0.0.0/1: more than 256 public addresses) to port 22")
	a.contained(t)
	a.noWrite(t)
}

// A Cosmos DB SQL role definition granting every data action, ready to be
// assigned to anyone: Cosmos DB's own RBAC, which no RoleAssignment rule sees.
func TestAttack_PolicyHoleCosmosRoleAllDataActions(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phcosmos")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	account := manifest(t, a, a.attacker, `
apiVersion: documentdb.aztenant.io/v1alpha1
kind: DatabaseAccount
metadata: {name: data}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  kind: GlobalDocumentDB
  databaseAccountOfferType: Standard
  publicNetworkAccess: Disabled
  locations:
    - locationName: westeurope
      failoverPriority: 0
`)
	a.ready(t, account)
	d := editor(t, a)
	a.begin()
	def := d.create(t, a, `
apiVersion: documentdb.aztenant.io/v1alpha1
kind: SqlRoleDefinition
metadata: {name: everything}
spec:
  owner: {name: data}
  azureName: 3fa85f64-5717-4562-b3fc-2c963f66afa6
  roleName: everything
  type: CustomRole
  assignableScopes: [`+account.AzureStatus().ID+`]
  permissions:
    - dataActions: ["*"]
`)
	a.policyDenied(t, def, "/sqlRoleDefinitions/3fa85f64-5717-4562-b3fc-2c963f66afa6", "no-wide-cosmos-roles",
		"SqlRoleDefinition everything grants data actions covering the whole account (*)")
	a.contained(t)
	a.noWrite(t)
}

// A SQL server whose Entra administrator is a principal of another
// directory: that directory's admin would own every database on it.
func TestAttack_PolicyHoleForeignSQLAdministrator(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phsqladm")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	d := editor(t, a)
	a.begin()
	server := d.create(t, a, `
apiVersion: sql.aztenant.io/v1alpha1
kind: Server
metadata: {name: sql}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  version: "12.0"
  publicNetworkAccess: Disabled
  administrators:
    administratorType: ActiveDirectory
    azureADOnlyAuthentication: true
    principalType: User
    login: admin@attacker.example
    sid: 0badbad0-1111-4222-8333-444444444444
    tenantId: 0badbad0-0000-4000-8000-00000000bbbb
`)
	a.policyDenied(t, server, "/servers/sql", "tenant-database-administrators",
		"makes admin@attacker.example (principal 0badbad0-1111-4222-8333-444444444444) of tenant 0badbad0-0000-4000-8000-00000000bbbb an Entra administrator",
		"not an allowed tenant ["+stacktest.TenantID+"]")
	a.contained(t)
	a.noWrite(t)
}

// A Key Vault of another directory, with every permission for a principal
// of that directory: access policies bypass Azure RBAC.
func TestAttack_PolicyHoleForeignKeyVaultAccess(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phkv")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	d := editor(t, a)
	a.begin()
	vault := d.create(t, a, `
apiVersion: keyvault.aztenant.io/v1alpha1
kind: Vault
metadata: {name: kv}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  sku: {family: A, name: standard}
  publicNetworkAccess: Disabled
  tenantId: 0badbad0-0000-4000-8000-00000000bbbb
  accessPolicies:
    - tenantId: 0badbad0-0000-4000-8000-00000000bbbb
      objectId: 0badbad0-1111-4222-8333-444444444444
      permissions:
        keys: [all]
        secrets: [all]
        certificates: [all]
        storage: [all]
`)
	a.policyDenied(t, vault, "/vaults/kv", "tenant-vaults",
		"Vault kv authenticates with tenant 0badbad0-0000-4000-8000-00000000bbbb",
		"grants access policies to principals outside the allowed tenants ["+stacktest.TenantID+"]: 0badbad0-1111-4222-8333-444444444444 of tenant 0badbad0-0000-4000-8000-00000000bbbb")
	a.contained(t)
	a.noWrite(t)
}

// Cosmos DB and a container registry open to the internet: the example
// constraints once matched public network access on five kinds only.
func TestAttack_PolicyHolePublicCosmosAndRegistry(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phpublic")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	d := editor(t, a)
	a.begin()
	cosmos := d.create(t, a, `
apiVersion: documentdb.aztenant.io/v1alpha1
kind: DatabaseAccount
metadata: {name: open}
spec:
  owner: {name: `+rg+`}
  location: westeurope
  kind: GlobalDocumentDB
  databaseAccountOfferType: Standard
  publicNetworkAccess: Enabled
  locations:
    - locationName: westeurope
      failoverPriority: 0
`)
	registry := d.create(t, a, `
apiVersion: containerregistry.aztenant.io/v1alpha1
kind: Registry
metadata: {name: open}
spec:
  owner: {name: `+rg+`}
  azureName: phpublicopen
  location: westeurope
  sku: {name: Premium}
  publicNetworkAccess: Enabled
`)
	a.policyDenied(t, cosmos, "/databaseAccounts/open", "private-by-default", "DatabaseAccount open allows public network access (publicNetworkAccess: Enabled)")
	a.policyDenied(t, registry, "/registries/phpublicopen", "private-by-default", "Registry open allows public network access (publicNetworkAccess: Enabled)")
	a.contained(t)
	a.noWrite(t)
}

// Azure Service Operator's reconcile-policy, which the operator honours, on
// a network the platform made in the attacker's group: skip observes, and
// observing marks the network adopted, so switching to manage would rewrite
// it and deleting the object would delete it. A namespace the platform has
// not allowed to adopt is refused before any call, even a read.
func TestAttack_PolicyHoleASOReconcilePolicy(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "phaso")
	rg := a.attacker + "-rg"
	a.ready(t, stacktest.ResourceGroup(a.attacker, rg, nil, nil))
	vnet := resourceID(rg, "Microsoft.Network/virtualNetworks", "legacy")
	a.PlatformPut(t, vnet, "2025-05-01", `{"location":"westeurope","tags":{"owner":"platform"},"properties":{"addressSpace":{"addressPrefixes":["10.9.0.0/16"]}}}`)
	d := editor(t, a)
	a.begin()
	for _, value := range []string{"skip", "manage"} {
		name := "legacy-" + value
		net := d.create(t, a, `
apiVersion: network.aztenant.io/v1alpha1
kind: VirtualNetwork
metadata:
  name: `+name+`
  annotations: {`+reconcilers.AnnotationASOReconcilePolicy+`: `+value+`}
spec:
  owner: {name: `+rg+`}
  azureName: legacy
  location: westeurope
  addressSpace: {addressPrefixes: ["10.8.0.0/16"]}
`)
		a.policyDenied(t, net, "/virtualNetworks/legacy", "restrict-reconcile-annotations",
			"VirtualNetwork "+name+" sets "+reconcilers.AnnotationASOReconcilePolicy+", which namespace "+a.attacker+" may not use")
		if net.AzureStatus().Adopted || net.AzureStatus().ID != "" {
			t.Errorf("%s: the network was taken over (status %+v)", name, net.AzureStatus())
		}
	}
	body := a.AzureBody(t, vnet)
	if tags, _ := body["tags"].(map[string]any); tags["owner"] != "platform" || !slices.Contains(addressPrefixes(body), "10.9.0.0/16") {
		t.Errorf("the platform's network was changed: %v", body)
	}
	a.contained(t)
	a.noWrite(t)
}

func addressPrefixes(body map[string]any) []string {
	props, _ := body["properties"].(map[string]any)
	space, _ := props["addressSpace"].(map[string]any)
	list, _ := space["addressPrefixes"].([]any)
	var out []string
	for _, p := range list {
		if s, ok := p.(string); ok {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}
