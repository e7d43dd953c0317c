package emulator_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
)

const networkAPI = "2025-05-01"

// childNames lists a parent's embedded children (properties.<collection>) by name, in
// the order GET answers them, checking each carries its child ID.
func childNames(t *testing.T, r armresources.GenericResource, collection string) []string {
	t.Helper()
	list, _ := props(r)[collection].([]any)
	var out []string
	for _, v := range list {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		if id, _ := m["id"].(string); id != *r.ID+"/"+collection+"/"+name {
			t.Errorf("%s %s has id %q", collection, name, id)
		}
		out = append(out, name)
	}
	return out
}

func equalNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A PUT of a virtual network, network security group or route table defines the whole set
// of its subnets, securityRules or routes, as in Azure: those absent are deleted.
func TestNetworkParentPutDefinesItsChildren(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "net")
	res := f.resources(t, cred)
	for _, tc := range []struct {
		parentType, collection string
		child                  func(prefix string) map[string]any
	}{
		{"virtualNetworks", "subnets", func(p string) map[string]any { return map[string]any{"addressPrefix": "10.0." + p + ".0/24"} }},
		{"networkSecurityGroups", "securityRules", func(p string) map[string]any {
			return map[string]any{"priority": 100 + len(p), "access": "Allow", "direction": "Inbound", "protocol": "Tcp",
				"sourceAddressPrefix": "*", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": p}
		}},
		{"routeTables", "routes", func(p string) map[string]any {
			return map[string]any{"addressPrefix": "10." + p + ".0.0/16", "nextHopType": "VnetLocal"}
		}},
	} {
		t.Run(tc.parentType, func(t *testing.T) {
			parent := rgScope + "net/providers/Microsoft.Network/" + tc.parentType + "/p1"
			parentBody := func(children ...string) armresources.GenericResource {
				p := map[string]any{}
				if tc.parentType == "virtualNetworks" {
					p["addressSpace"] = map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}
				}
				if children != nil {
					list := []any{}
					for i, n := range children {
						list = append(list, map[string]any{"name": n, "properties": tc.child(string(rune('1' + i)))})
					}
					p[tc.collection] = list
				}
				return armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: p}
			}
			got, err := put(t, res, parent, networkAPI, parentBody("a", "b"))
			if err != nil {
				t.Fatal(err)
			}
			if names := childNames(t, got, tc.collection); !equalNames(names, []string{"a", "b"}) {
				t.Errorf("PUT answered %s %v", tc.collection, names)
			}
			// Each is a child resource of its own.
			for _, n := range []string{"a", "b"} {
				c, err := res.GetByID(ctxT(t), parent+"/"+tc.collection+"/"+n, networkAPI, nil)
				if err != nil {
					t.Fatalf("child %s: %v", n, err)
				}
				if s := props(c.GenericResource)["provisioningState"]; s != "Succeeded" {
					t.Errorf("child %s state %v", n, s)
				}
			}
			// A child written at its own URL joins the parent's list.
			if _, err := put(t, res, parent+"/"+tc.collection+"/c", networkAPI, armresources.GenericResource{Properties: tc.child("9")}); err != nil {
				t.Fatal(err)
			}
			got, err = getByID(t, res, parent)
			if err != nil {
				t.Fatal(err)
			}
			if names := childNames(t, got, tc.collection); !equalNames(names, []string{"a", "b", "c"}) {
				t.Errorf("after the child's PUT the parent lists %v", names)
			}
			// Named again, a child is updated.
			changed := parentBody("a", "b", "c")
			changed.Properties.(map[string]any)[tc.collection].([]any)[0].(map[string]any)["properties"] = tc.child("7")
			if _, err := put(t, res, parent, networkAPI, changed); err != nil {
				t.Fatal(err)
			}
			a, err := getByID(t, res, parent+"/"+tc.collection+"/a")
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.child("7") {
				if got := props(a)[k]; got != v && !(k == "priority" && got == float64(v.(int))) {
					t.Errorf("child a's %s is %v after the parent's PUT, want %v", k, got, v)
				}
			}
			// Left out of the body, they are deleted: here a PUT that only changes tags.
			tagged := parentBody()
			tagged.Tags = map[string]*string{"env": to.Ptr("test")}
			got, err = put(t, res, parent, networkAPI, tagged)
			if err != nil {
				t.Fatal(err)
			}
			if names := childNames(t, got, tc.collection); len(names) != 0 {
				t.Errorf("a PUT without %s left %v", tc.collection, names)
			}
			for _, n := range []string{"a", "b", "c"} {
				if _, err := res.GetByID(ctxT(t), parent+"/"+tc.collection+"/"+n, networkAPI, nil); err == nil {
					t.Errorf("child %s still exists", n)
				} else if status, _ := responseError(t, err); status != http.StatusNotFound {
					t.Errorf("child %s: %v", n, err)
				}
			}
			// A child deleted at its own URL leaves the list.
			if _, err := put(t, res, parent, networkAPI, parentBody("a", "b")); err != nil {
				t.Fatal(err)
			}
			if err := del(t, res, parent+"/"+tc.collection+"/a", networkAPI); err != nil {
				t.Fatal(err)
			}
			got, err = getByID(t, res, parent)
			if err != nil {
				t.Fatal(err)
			}
			if names := childNames(t, got, tc.collection); !equalNames(names, []string{"b"}) {
				t.Errorf("after deleting a the parent lists %v", names)
			}
		})
	}
}

// A subnet something refers to (here a network interface's IP configuration) is not
// deleted by a PUT leaving it out: Azure answers 400 InUseSubnetCannotBeDeleted and
// changes nothing.
func TestVirtualNetworkPutKeepsSubnetInUse(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "net")
	res := f.resources(t, cred)
	vnet := rgScope + "net/providers/Microsoft.Network/virtualNetworks/v1"
	body := func(subnets ...string) armresources.GenericResource {
		list := []any{}
		for i, n := range subnets {
			list = append(list, map[string]any{"name": n, "properties": map[string]any{"addressPrefix": "10.0." + string(rune('1'+i)) + ".0/24"}})
		}
		return armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{
			"addressSpace": map[string]any{"addressPrefixes": []string{"10.0.0.0/16"}}, "subnets": list}}
	}
	if _, err := put(t, res, vnet, networkAPI, body("app", "app2")); err != nil {
		t.Fatal(err)
	}
	nic := rgScope + "net/providers/Microsoft.Network/networkInterfaces/nic1"
	if _, err := put(t, res, nic, networkAPI, armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{
		"ipConfigurations": []any{map[string]any{"name": "ipconfig1", "properties": map[string]any{"subnet": map[string]any{"id": vnet + "/subnets/app"}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []armresources.GenericResource{body(), body("app2")} {
		_, err := put(t, res, vnet, networkAPI, b)
		if err == nil {
			t.Fatal("a PUT deleted a subnet in use")
		}
		if status, code := responseError(t, err); status != http.StatusBadRequest || code != "InUseSubnetCannotBeDeleted" {
			t.Errorf("status %d code %s", status, code)
		}
	}
	got, err := getByID(t, res, vnet)
	if err != nil {
		t.Fatal(err)
	}
	if names := childNames(t, got, "subnets"); !equalNames(names, []string{"app", "app2"}) {
		t.Errorf("after the refused PUTs the network lists %v", names)
	}
	// Subnet "app" in use does not protect "app2", whose ID begins with its ID.
	if _, err := put(t, res, vnet, networkAPI, body("app")); err != nil {
		t.Errorf("deleting the unused subnet app2: %v", err)
	}
	// Neither the subnet's own DELETE nor its network's deletes it while in use.
	for _, id := range []string{vnet + "/subnets/app", vnet} {
		err := del(t, res, id, networkAPI)
		if err == nil {
			t.Fatalf("DELETE %s deleted a subnet in use", id)
		}
		if status, code := responseError(t, err); status != http.StatusBadRequest || code != "InUseSubnetCannotBeDeleted" {
			t.Errorf("DELETE %s: status %d code %s", id, status, code)
		}
	}
	if err := del(t, res, nic, networkAPI); err != nil {
		t.Fatal(err)
	}
	if _, err := put(t, res, vnet, networkAPI, body()); err != nil {
		t.Errorf("deleting the subnet no longer in use: %v", err)
	}
}

func getByID(t *testing.T, c *armresources.Client, id string) (armresources.GenericResource, error) {
	t.Helper()
	r, err := c.GetByID(ctxT(t), id, networkAPI, nil)
	return r.GenericResource, err
}
