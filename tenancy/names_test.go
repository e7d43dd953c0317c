package tenancy

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tenancyv1alpha1 "github.com/aztenant/aztenant/api/tenancy/v1alpha1"
)

// Names Azure turns into resources or destinations are bounded like the ARM
// IDs they stand for: a node resource group in another tenant's pattern, a
// capture to a Data Lake account of another subscription, a partner topic in
// a subscription the Tenant does not have.
func TestAdmitNames(t *testing.T) {
	const lake = "Microsoft.DataLakeStore/accounts"
	const storage = "Microsoft.Storage/storageAccounts"
	tests := []struct {
		name     string
		mode     ServeMode
		ns       string
		n        Name
		wantRule string // "" = admitted
		wantMsg  string
	}{
		{name: "node resource group in the tenant's pattern", ns: "team-a",
			n: Name{Path: "properties.nodeResourceGroup", Value: "team-a-nodes", Means: NameResourceGroup, SubscriptionID: subA}},
		{name: "node resource group outside the pattern", ns: "team-a",
			n: Name{Path: "properties.nodeResourceGroup", Value: "victim-nodes", Means: NameResourceGroup, SubscriptionID: subA}, wantRule: RuleSharedResources,
			wantMsg: `properties.nodeResourceGroup refers to /subscriptions/` + subA + `/resourceGroups/victim-nodes, outside tenant "team-a"'s resource groups (team-a-*)`},
		{name: "a group another Tenant claims more specifically", ns: "team-a",
			n: Name{Path: "properties.infrastructureResourceGroup", Value: "team-a-x-infra", Means: NameResourceGroup, SubscriptionID: subA}, wantRule: RuleSharedResources,
			wantMsg: `of tenant "team-a-x"`},
		{name: "resource group in the subscription given beside it", ns: "team-a",
			n: Name{Path: "properties.partnerTopicInfo.resourceGroupName", Value: "team-a-topics", Means: NameResourceGroup, SubscriptionID: subB}, wantRule: RuleSharedResources,
			wantMsg: `in subscription "` + subB + `", outside tenant "team-a"`},
		{name: "resource group with a character ARM refuses", ns: "team-a",
			n: Name{Path: "p", Value: "team-a-x y", Means: NameResourceGroup, SubscriptionID: subA}, wantRule: RuleARMID},
		{name: "resource group by ARM ID", ns: "team-a",
			n: Name{Path: "p", Value: "/subscriptions/" + subA + "/resourceGroups/victim-rg", Means: NameResourceGroup, SubscriptionID: subA}, wantRule: RuleSharedResources,
			wantMsg: "p refers to /subscriptions/" + subA + "/resourceGroups/victim-rg"},
		{name: "resource group by ARM ID with dot segments", ns: "team-a",
			n: Name{Path: "p", Value: "/subscriptions/" + subA + "/resourceGroups/team-a-x/../victim", Means: NameResourceGroup}, wantRule: RuleARMID},
		{name: "the tenant's subscription", ns: "team-a", n: Name{Path: "properties.azureSubscriptionId", Value: strings.ToUpper(subA), Means: NameSubscription}},
		{name: "the tenant's subscription by ARM ID", ns: "team-a", n: Name{Path: "properties.networkManagerScopes.subscriptions[0]", Value: "/subscriptions/" + subA, Means: NameSubscription}},
		{name: "another subscription", ns: "team-a", n: Name{Path: "properties.azureSubscriptionId", Value: subB, Means: NameSubscription}, wantRule: RuleSharedResources,
			wantMsg: `properties.azureSubscriptionId gives subscription "` + subB + `", outside tenant "team-a"`},
		{name: "a subscription with a space", ns: "team-a", n: Name{Path: "p", Value: " " + subA, Means: NameSubscription}, wantRule: RuleARMID},
		{name: "not a subscription", ns: "team-a", n: Name{Path: "p", Value: "/providers/Microsoft.Management/managementGroups/root", Means: NameSubscription}, wantRule: RuleARMID},
		{name: "an account the namespace manages", ns: "team-a", n: Name{Path: "p", Value: "teamalake", Means: storage, Owned: true}},
		{name: "an account the namespace does not manage", ns: "team-a", n: Name{Path: "properties.azureFile.accountName", Value: "victimfiles", Means: storage}, wantRule: RuleSharedResources,
			wantMsg: `properties.azureFile.accountName names ` + storage + ` "victimfiles", which no object of namespace "team-a" manages and tenant "team-a" does not share`},
		{name: "a Data Lake account in another subscription", ns: "team-a",
			n:        Name{Path: "properties.captureDescription.destination.properties.dataLakeAccountName", Value: "victimlake", Means: lake, SubscriptionID: subB},
			wantRule: RuleSharedResources, wantMsg: `dataLakeAccountName names ` + lake + ` "victimlake" in subscription ` + subB + `, outside tenant "team-a"`},
		{name: "an owned name in another subscription", ns: "team-a",
			n: Name{Path: "p", Value: "teamalake", Means: lake, SubscriptionID: subB, Owned: true}, wantRule: RuleSharedResources},
		{name: "a Data Lake account the tenant shares", ns: "team-a", n: Name{Path: "p", Value: "CentralLake", Means: lake, SubscriptionID: subB}},
		{name: "a shared account is shared in its subscription only", ns: "team-a", n: Name{Path: "p", Value: "centrallake", Means: lake, SubscriptionID: subA}, wantRule: RuleSharedResources},
		{name: "a shared account is shared by its type", ns: "team-a", n: Name{Path: "p", Value: "centrallake", Means: storage}, wantRule: RuleSharedResources},
		{name: "a shared group does not share an account named alone", ns: "team-a", n: Name{Path: "p", Value: "hubfiles", Means: storage}, wantRule: RuleSharedResources},
		{name: "an account name with a dot", ns: "team-a", n: Name{Path: "p", Value: "x.y", Means: storage}, wantRule: RuleARMID},
		{name: "anything, served without a Tenant", mode: ServeAll(), ns: "lonely", n: Name{Path: "p", Value: "victimfiles", Means: storage}},
	}
	for _, tt := range tests {
		objs := fixture()
		a := objs[0].(*tenancyv1alpha1.Tenant)
		a.Spec.SharedResources = append(a.Spec.SharedResources,
			tenancyv1alpha1.SharedResource{ARMID: "/subscriptions/" + subB + "/resourceGroups/*/providers/Microsoft.DataLakeStore/accounts/centrallake"},
			tenancyv1alpha1.SharedResource{ARMID: "/subscriptions/" + subA + "/resourceGroups/hub-files"})
		reader := fakeReader(t, objs...)
		for path, d := range map[string]*Directory{"listing": NewDirectory(reader, tt.mode), "index": indexed(reader, tt.mode, objs...)} {
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tt.ns, Name: "obj"}}
			err := NewGuard(d).AdmitNames(context.Background(), obj, []Name{
				{Path: "properties.first", Value: "team-a-first", Means: NameResourceGroup, SubscriptionID: subA}, tt.n})
			var denial *DeniedError
			switch {
			case tt.wantRule == "":
				if err != nil {
					t.Errorf("%s/%s: AdmitNames = %v, want admitted", tt.name, path, err)
				}
			case !errors.As(err, &denial) || denial.Rule != tt.wantRule:
				t.Errorf("%s/%s: AdmitNames = %#v, want denial by %s", tt.name, path, err, tt.wantRule)
			case !strings.Contains(denial.Message, tt.wantMsg):
				t.Errorf("%s/%s: message %q, want it to contain %q", tt.name, path, denial.Message, tt.wantMsg)
			}
		}
	}
}
