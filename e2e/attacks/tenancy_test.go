package attacks_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authorizationv1alpha1 "github.com/aztenant/aztenant/api/authorization/v1alpha1"
	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	storagev1alpha1 "github.com/aztenant/aztenant/api/storage/v1alpha1"
	"github.com/aztenant/aztenant/emulator"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/internal/testing/stacktest"
	"github.com/aztenant/aztenant/tenancy"
)

func storageAccount(ns, name string, owner azurev1alpha1.OwnerReference) *storagev1alpha1.StorageAccount {
	return &storagev1alpha1.StorageAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: storagev1alpha1.StorageAccountSpec{Owner: &owner, Location: stacktest.Location, Kind: "StorageV2",
			Sku: storagev1alpha1.StorageSku{Name: "Standard_LRS"}, PublicNetworkAccess: "Disabled"}, // private-by-default
	}
}

func roleAssignment(ns, name string, owner authorizationv1alpha1.RoleAssignmentOwner, role authorizationv1alpha1.RoleDefinitionReference, principal string) *authorizationv1alpha1.RoleAssignment {
	return &authorizationv1alpha1.RoleAssignment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       authorizationv1alpha1.RoleAssignmentSpec{Owner: &owner, RoleDefinitionReference: role, PrincipalID: principal},
	}
}

// A storage account whose owner.armId is the victim's resource group: the
// Tenant allows only the attacker's own groups.
func TestAttack_OwnerARMIDInAnotherTenantsGroup(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "oarm")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-data", nil, nil))
	a.begin()
	sa := storageAccount(a.attacker, "oarmplant", azurev1alpha1.OwnerReference{ARMID: stacktest.RGID(a.victim + "-data")})
	a.Create(t, sa)
	a.denied(t, sa, tenancy.ReasonPolicyDenied, `resource group "`+a.victim+`-data" is not allowed for tenant "`+a.attacker+`"`)
	a.contained(t)
	a.noCall(t, "/storageAccounts/oarmplant")
}

// A resource group named like another tenant's: creating it would put the
// attacker's resources where the victim's Tenant says they belong.
func TestAttack_ResourceGroupOfAnotherTenant(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rgot")
	rg := stacktest.ResourceGroup(a.attacker, "squat", nil, nil)
	rg.Spec.AzureName = a.victim + "-new"
	a.Create(t, rg)
	a.denied(t, rg, tenancy.ReasonPolicyDenied, a.victim+"-new", "allowed: "+a.attacker+"-*")
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+a.victim+"-new")
}

// Dot segments in owner.armId that would climb out of the attacker's group
// into the victim's if anything on the way normalised the path. The API
// server's pattern lets them through; the ARM ID parser refuses them.
func TestAttack_DotSegmentsInOwnerARMID(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "dots")
	scope := stacktest.RGID(a.attacker+"-rg") + "/../" + a.victim + "-rg"
	ra := roleAssignment(a.attacker, "climb", authorizationv1alpha1.RoleAssignmentOwner{ARMID: scope},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, tenancy.ReasonPolicyDenied, "dot segments are not allowed")
	a.contained(t)
	a.noWrite(t)
}

// azureName ".." on a child resource: its ARM ID would end in
// ".../flexibleServers/srv/databases/..", the server itself once normalised.
func TestAttack_DotSegmentAzureName(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "dotname")
	server := stacktest.RGID(a.attacker+"-rg") + "/providers/Microsoft.DBforPostgreSQL/flexibleServers/srv"
	db := &dbforpostgresqlv1alpha1.FlexibleServersDatabase{
		ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "up"},
		Spec: dbforpostgresqlv1alpha1.FlexibleServersDatabaseSpec{AzureName: "..",
			Owner: &azurev1alpha1.OwnerReference{ARMID: server}},
	}
	a.Create(t, db)
	a.denied(t, db, tenancy.ReasonPolicyDenied, "dot segments are not allowed")
	a.contained(t)
	a.noWrite(t)
}

// An Identity of the attacker's own namespace pointed at a subscription its
// Tenant does not allow, where the attacker's principal does have rights
// (Contributor): only the tenancy guard stands in the way.
func TestAttack_IdentityInAnotherSubscription(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "osub")
	const other = "00000000-0000-0000-0000-0000000000cc"
	if err := a.Emu.Seed(emulator.Seed{
		Subscriptions:   []emulator.Subscription{{ID: other, TenantID: stacktest.TenantID}},
		RoleAssignments: []emulator.RoleAssignment{{PrincipalID: a.Principal[a.attacker], Role: "Contributor", Scope: "/subscriptions/" + other}},
	}); err != nil {
		t.Fatal(err)
	}
	a.Create(t, &identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Namespace: a.attacker, Name: "elsewhere"},
		Spec: identityv1alpha1.IdentitySpec{ServiceAccountName: identity.ProvisionerServiceAccount, SubscriptionID: other}})
	rg := stacktest.ResourceGroup(a.attacker, a.attacker+"-rg", map[string]string{identity.AnnotationIdentity: "elsewhere"}, nil)
	a.Create(t, rg)
	a.denied(t, rg, tenancy.ReasonPolicyDenied, `subscription "`+other+`" is not allowed`)
	a.contained(t)
	a.noCall(t, "/resourceGroups/"+rg.Name)
}

// spec.owner.name written as namespace/name to reach the victim's resource
// group object.
func TestAttack_OwnerInAnotherNamespace(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "ons")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-rg", nil, nil))
	a.begin()
	sa := storageAccount(a.attacker, "onsplant", azurev1alpha1.OwnerReference{Name: a.victim + "/" + a.victim + "-rg"})
	a.Create(t, sa)
	a.denied(t, sa, tenancy.ReasonCrossNamespace, a.victim, "references stay in the object's own namespace")
	a.contained(t)
	a.noCall(t, "/storageAccounts/onsplant")
}

// A role for the attacker on the victim's resource group, by armId.
func TestAttack_RoleAssignmentOnAnotherTenantsGroup(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "raot")
	a.ready(t, stacktest.ResourceGroup(a.victim, a.victim+"-rg", nil, nil))
	a.begin()
	ra := roleAssignment(a.attacker, "peek", authorizationv1alpha1.RoleAssignmentOwner{ARMID: stacktest.RGID(a.victim + "-rg")},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Reader"}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, tenancy.ReasonPolicyDenied, a.victim+"-rg")
	a.contained(t)
	a.noWrite(t)
}

// Owner on the whole subscription, which covers every tenant's groups.
func TestAttack_RoleAssignmentOwnerAtSubscriptionScope(t *testing.T) {
	t.Parallel()
	a := newAttack(t, "rasub")
	ra := roleAssignment(a.attacker, "everything", authorizationv1alpha1.RoleAssignmentOwner{ARMID: "/subscriptions/" + subID},
		authorizationv1alpha1.RoleDefinitionReference{WellKnownName: "Owner"}, a.Principal[a.attacker])
	a.Create(t, ra)
	a.denied(t, ra, tenancy.ReasonPolicyDenied, "outside any resource group")
	a.contained(t)
	a.noWrite(t)
}
