package emulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/eventgrid/armeventgrid/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/servicebus/armservicebus"
)

// The type-specific SDK clients, which refuse any status their swagger does not document
// (runtime.HasStatusCode), work against the generated kinds' answers: a Service Bus
// queue's synchronous PUT answers 200 on create (armservicebus v1.2.0 QueuesClient accepts
// only 200), an Event Grid topic's long-running PUT 201 on update too (armeventgrid v2.2.0
// TopicsClient accepts only 201), a vault's PATCH is synchronous and its DELETE of an
// absent vault 204 (armkeyvault v1.5.0 VaultsClient).
func TestGeneratedKindsThroughTheirSDKClients(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "sdk")
	opts := f.armOptions()
	var resp *http.Response
	status := func() int {
		if resp == nil {
			return 0
		}
		return resp.StatusCode
	}

	t.Run("servicebus queue", func(t *testing.T) {
		ns, err := armservicebus.NewNamespacesClient(subscriptionID, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ns.BeginCreateOrUpdate(ctxT(t), "sdk", "sb1", armservicebus.SBNamespace{Location: to.Ptr("westeurope")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.PollUntilDone(ctxT(t), fastPoll); err != nil {
			t.Fatal(err)
		}
		qs, err := armservicebus.NewQueuesClient(subscriptionID, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, what := range []string{"create", "update"} {
			ctx := policy.WithCaptureResponse(ctxT(t), &resp)
			q, err := qs.CreateOrUpdate(ctx, "sdk", "sb1", "q1", armservicebus.SBQueue{Properties: &armservicebus.SBQueueProperties{MaxDeliveryCount: to.Ptr[int32](5)}}, nil)
			if err != nil || status() != http.StatusOK || q.Name == nil {
				t.Fatalf("%s: %d %v", what, status(), err)
			}
		}
		for _, want := range []int{http.StatusOK, http.StatusNoContent} {
			ctx := policy.WithCaptureResponse(ctxT(t), &resp)
			if _, err := qs.Delete(ctx, "sdk", "sb1", "q1", nil); err != nil || status() != want {
				t.Errorf("delete answered %d (%v), want %d", status(), err, want)
			}
		}
	})

	t.Run("eventgrid topic", func(t *testing.T) {
		topics, err := armeventgrid.NewTopicsClient(subscriptionID, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, what := range []string{"create", "update"} {
			ctx := policy.WithCaptureResponse(ctxT(t), &resp)
			p, err := topics.BeginCreateOrUpdate(ctx, "sdk", "topic1", armeventgrid.Topic{Location: to.Ptr("westeurope")}, nil)
			if err != nil || status() != http.StatusCreated {
				t.Fatalf("%s: %d %v", what, status(), err)
			}
			if _, err := p.PollUntilDone(ctxT(t), fastPoll); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		p, err := topics.BeginUpdate(ctxT(t), "sdk", "topic1", armeventgrid.TopicUpdateParameters{Tags: map[string]*string{"a": to.Ptr("b")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.PollUntilDone(ctxT(t), fastPoll); err != nil {
			t.Fatal(err)
		}
		d, err := topics.BeginDelete(ctxT(t), "sdk", "topic1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.PollUntilDone(ctxT(t), fastPoll); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("key vault", func(t *testing.T) {
		vaults, err := armkeyvault.NewVaultsClient(subscriptionID, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := vaults.BeginCreateOrUpdate(ctxT(t), "sdk", "kv1", armkeyvault.VaultCreateOrUpdateParameters{
			Location: to.Ptr("westeurope"),
			Properties: &armkeyvault.VaultProperties{TenantID: to.Ptr(tenantID),
				SKU: &armkeyvault.SKU{Family: to.Ptr(armkeyvault.SKUFamilyA), Name: to.Ptr(armkeyvault.SKUNameStandard)}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.PollUntilDone(ctxT(t), fastPoll); err != nil {
			t.Fatal(err)
		}
		ctx := policy.WithCaptureResponse(ctxT(t), &resp)
		if _, err := vaults.Update(ctx, "sdk", "kv1", armkeyvault.VaultPatchParameters{Tags: map[string]*string{"a": to.Ptr("b")}}, nil); err != nil ||
			status() != http.StatusOK || resp.Header.Get("Azure-AsyncOperation") != "" {
			t.Errorf("update answered %d (%v), want a synchronous 200", status(), err)
		}
		for _, want := range []int{http.StatusOK, http.StatusNoContent} {
			ctx := policy.WithCaptureResponse(ctxT(t), &resp)
			if _, err := vaults.Delete(ctx, "sdk", "kv1", nil); err != nil || status() != want {
				t.Errorf("delete answered %d (%v), want %d", status(), err, want)
			}
		}
	})
}

// A missing nested resource answers 404 with its provider's own code where a real answer
// shows one (notfound.go: API Management's "Api not found.", Cosmos DB's NotFound), and
// ARM's ResourceNotFound elsewhere (SQL databases, as Azure/azure-sdk-for-net#28730
// quotes); a missing parent answers ParentResourceNotFound.
func TestProviderNotFoundCodes(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "nf")
	res := f.resources(t, cred)
	base := rgScope + "nf/providers/"
	for _, p := range []struct{ id, apiVersion string }{
		{base + "Microsoft.ApiManagement/service/apim", "2024-05-01"},
		{base + "Microsoft.DocumentDB/databaseAccounts/acct", "2025-10-15"},
		{base + "Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/db", "2025-10-15"},
		{base + "Microsoft.Sql/servers/sql1", "2021-02-01-preview"},
	} {
		if _, err := put(t, res, p.id, p.apiVersion, armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ id, apiVersion, code, message string }{
		{base + "Microsoft.ApiManagement/service/apim/apis/gone", "2024-05-01", "ResourceNotFound", "Api not found."},
		{base + "Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/db/containers/gone", "2025-10-15", "NotFound", `Resource Not Found`},
		{base + "Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/gone", "2025-10-15", "ResourceNotFound", "The Resource 'Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/gone' under resource group 'nf' was not found."},
		{base + "Microsoft.Sql/servers/sql1/databases/gone", "2021-05-01-preview", "ResourceNotFound", "The Resource 'Microsoft.Sql/servers/sql1/databases/gone' under resource group 'nf' was not found."},
		{base + "Microsoft.DocumentDB/databaseAccounts/acct/sqlDatabases/gone/containers/c", "2025-10-15", "ParentResourceNotFound", "Parent resource 'acct/gone' not found."},
	} {
		_, err := res.GetByID(ctxT(t), c.id, c.apiVersion, nil)
		if status, code := responseError(t, err); status != http.StatusNotFound || code != c.code {
			t.Errorf("GET %s: %d %s, want 404 %s", c.id, status, code, c.code)
		}
		mustContain(t, err.Error(), c.message)
	}
}

// A child's name is answered as its type's documented examples spell it: App Service
// slots, Redis firewall rules and Log Analytics linked services as their path below the
// provider ("site1/staging", as CloneWebAppSlot.json and the others answer,
// childName "path" in emulator/answers), other children by their own name.
func TestChildNamesAsTheExamplesSpellThem(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "names")
	res := f.resources(t, cred)
	base := rgScope + "names/providers/"
	body := armresources.GenericResource{Location: to.Ptr("westeurope")}
	for _, c := range []struct{ id, apiVersion, name string }{
		{base + "Microsoft.Web/sites/site1", "2024-11-01", "site1"},
		{base + "Microsoft.Web/sites/site1/slots/staging", "2024-11-01", "site1/staging"},
		{base + "Microsoft.OperationalInsights/workspaces/ws1", "2025-07-01", "ws1"},
		{base + "Microsoft.OperationalInsights/workspaces/ws1/linkedServices/Cluster", "2025-07-01", "ws1/Cluster"},
		{base + "Microsoft.ServiceBus/namespaces/sb1", "2021-11-01", "sb1"},
		{base + "Microsoft.ServiceBus/namespaces/sb1/queues/q1", "2021-11-01", "q1"},
	} {
		got, err := put(t, res, c.id, c.apiVersion, body)
		if err != nil {
			t.Fatal(err)
		}
		read, err := res.GetByID(ctxT(t), c.id, c.apiVersion, nil)
		if err != nil {
			t.Fatal(err)
		}
		for what, r := range map[string]armresources.GenericResource{"PUT": got, "GET": read.GenericResource} {
			if r.Name == nil || *r.Name != c.name || r.ID == nil || !strings.EqualFold(*r.ID, c.id) {
				t.Errorf("%s %s: name %v id %v, want name %s", what, c.id, deref(r.Name), deref(r.ID), c.name)
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
