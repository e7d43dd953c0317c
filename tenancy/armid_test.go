package tenancy

import (
	"errors"
	"strings"
	"testing"
)

func TestParseARMID(t *testing.T) {
	rg := "/subscriptions/" + subA + "/resourceGroups/team-a-db"
	tests := []struct {
		id      string
		want    ARMID
		wantErr bool
	}{
		{id: "/subscriptions/" + subA, want: ARMID{SubscriptionID: subA}},
		{id: rg, want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Name: "team-a-db"}},
		{id: "/SUBSCRIPTIONS/" + subA + "/RESOURCEGROUPS/Team-A-DB", want: ARMID{SubscriptionID: subA, ResourceGroup: "Team-A-DB", Name: "Team-A-DB"}},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa1", want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Provider: "Microsoft.Storage", Type: "Microsoft.Storage/storageAccounts", Name: "sa1"}},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa1/blobServices/default", want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Provider: "Microsoft.Storage", Type: "Microsoft.Storage/storageAccounts/blobServices", Name: "default"}},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa1/providers/Microsoft.Authorization/roleAssignments/r1", want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Provider: "Microsoft.Storage", Type: "Microsoft.Authorization/roleAssignments", Name: "r1"}},
		{id: "/subscriptions/" + subA + "/providers/Microsoft.Authorization/roleAssignments/r1", want: ARMID{SubscriptionID: subA, Provider: "Microsoft.Authorization", Type: "Microsoft.Authorization/roleAssignments", Name: "r1"}},
		{id: rg + "/providers/Microsoft.Cache/redis/my cache", want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Provider: "Microsoft.Cache", Type: "Microsoft.Cache/redis", Name: "my cache"}},
		// API Management and Service Bus have types named subscriptions.
		{id: rg + "/providers/Microsoft.ApiManagement/service/apim/subscriptions/" + subB, want: ARMID{SubscriptionID: subA, ResourceGroup: "team-a-db", Provider: "Microsoft.ApiManagement", Type: "Microsoft.ApiManagement/service/subscriptions", Name: subB}},

		{id: "", wantErr: true},
		{id: "subscriptions/" + subA, wantErr: true},
		{id: "/subscriptions/not-a-guid", wantErr: true},
		{id: "/subscriptions/" + subA + "/", wantErr: true},
		{id: rg + "/", wantErr: true},
		{id: "/subscriptions//resourceGroups/x", wantErr: true},
		{id: rg + "//providers/Microsoft.Storage/storageAccounts/sa1", wantErr: true},
		{id: rg + "/../team-b/providers/Microsoft.Storage/storageAccounts/sa1", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/..", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/.", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/%2e%2e", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa?x=1", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa#x", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa\\x", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts/sa\n", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage/storageAccounts", wantErr: true},
		{id: rg + "/providers/Microsoft.Storage", wantErr: true},
		{id: rg + "/providers", wantErr: true},
		{id: rg + "/providers/Storage/storageAccounts/sa", wantErr: true},
		{id: rg + "/foo/bar", wantErr: true},
		{id: "/subscriptions/" + subA + "/resourceGroups", wantErr: true},
		{id: "/subscriptions/" + subA + "/resourceGroups/bad.", wantErr: true},
		{id: "/subscriptions/" + subA + "/resourceGroups/bad name", wantErr: true},
		{id: "/subscriptions/" + subA + "/resourceGroups/" + string(make([]byte, 91)), wantErr: true},
		{id: "/subscriptions/" + subA + "/resourceGroups/a/resourceGroups/b", wantErr: true},
		{id: "/tenants/x", wantErr: true},
		{id: rg + "/providers/Microsoft.Network/privateDnsZones/z/subscriptions/" + subB + "/resourceGroups/b/providers/Microsoft.Network/virtualNetworks/v", wantErr: true},
		{id: rg + "/providers/Microsoft.Network/privateDnsZones/z/SUBSCRIPTIONS/" + subB + "/providers/Microsoft.Network/networkWatchers/w", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseARMID(tt.id)
		var invalid *InvalidARMIDError
		if tt.wantErr {
			if !errors.As(err, &invalid) {
				t.Errorf("ParseARMID(%q) = %+v, %v; want *InvalidARMIDError", tt.id, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseARMID(%q) = %+v, %v; want %+v", tt.id, got, err, tt.want)
		}
	}
}

func FuzzParseARMID(f *testing.F) {
	f.Add("/subscriptions/" + subA + "/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/sa")
	f.Add("/subscriptions/" + subA + "/resourceGroups/rg/../x")
	f.Fuzz(func(t *testing.T, id string) {
		a, err := ParseARMID(id)
		if err != nil {
			return
		}
		// Whatever parses is free of traversal and lies where it says.
		for _, bad := range []string{"/../", "/./", "//", "?", "#", "%"} {
			if strings.Contains(id+"/", bad) {
				t.Fatalf("accepted %q containing %q", id, bad)
			}
		}
		if !isGUID(a.SubscriptionID) {
			t.Fatalf("accepted %q with subscription %q", id, a.SubscriptionID)
		}
	})
}
