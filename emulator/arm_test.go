package emulator_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"

	"github.com/aztenant/aztenant/emulator"
)

const widgetsType = "Microsoft.Test/widgets"

func (f *fixture) resources(t testing.TB, cred azcore.TokenCredential) *armresources.Client {
	t.Helper()
	c, err := armresources.NewClient(subscriptionID, cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) groups(t testing.TB, cred azcore.TokenCredential) *armresources.ResourceGroupsClient {
	t.Helper()
	c, err := armresources.NewResourceGroupsClient(subscriptionID, cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) createGroup(t testing.TB, cred azcore.TokenCredential, name string) {
	t.Helper()
	if _, err := f.groups(t, cred).CreateOrUpdate(ctxT(t), name, armresources.ResourceGroup{Location: to.Ptr("westeurope")}, nil); err != nil {
		t.Fatalf("create resource group %s: %v", name, err)
	}
}

// put creates or updates a resource through the generic client and waits for it.
func put(t testing.TB, c *armresources.Client, id, apiVersion string, r armresources.GenericResource) (armresources.GenericResource, error) {
	t.Helper()
	p, err := c.BeginCreateOrUpdateByID(ctxT(t), id, apiVersion, r, nil)
	if err != nil {
		return armresources.GenericResource{}, err
	}
	res, err := p.PollUntilDone(ctxT(t), fastPoll)
	return res.GenericResource, err
}

func del(t testing.TB, c *armresources.Client, id, apiVersion string) error {
	t.Helper()
	p, err := c.BeginDeleteByID(ctxT(t), id, apiVersion, nil)
	if err != nil {
		return err
	}
	_, err = p.PollUntilDone(ctxT(t), fastPoll)
	return err
}

// post runs a POST action (listKeys ...) through the SDK's ARM pipeline: bearer token,
// retries and error handling as any generated client would do it.
func (f *fixture) post(t testing.TB, cred azcore.TokenCredential, id, action, apiVersion string, body any) (map[string]any, error) {
	t.Helper()
	cl, err := arm.NewClient("emulator.test", "v0.0.1", cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	req, err := runtime.NewRequest(ctxT(t), http.MethodPost, runtime.JoinPaths(cl.Endpoint(), id, action))
	if err != nil {
		t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	if body != nil {
		if err := runtime.MarshalAsJSON(req, body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := cl.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if !runtime.HasStatusCode(resp, http.StatusOK) {
		return nil, runtime.NewResponseError(resp)
	}
	var out map[string]any
	err = runtime.UnmarshalAsJSON(resp, &out)
	return out, err
}

func props(r armresources.GenericResource) map[string]any {
	m, _ := r.Properties.(map[string]any)
	return m
}

func TestResourceGroupLifecycleCascades(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	groups, res := f.groups(t, cred), f.resources(t, cred)
	ctx := ctxT(t)

	created, err := groups.CreateOrUpdate(ctx, "team-a", armresources.ResourceGroup{Location: to.Ptr("West Europe"), Tags: map[string]*string{"team": to.Ptr("a")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *created.ID, "/subscriptions/"+subscriptionID+"/resourceGroups/team-a"; got != want {
		t.Errorf("id %s, want %s", got, want)
	}
	if *created.Location != "westeurope" || *created.Properties.ProvisioningState != "Succeeded" {
		t.Errorf("location %s state %s", *created.Location, *created.Properties.ProvisioningState)
	}
	if _, err := groups.CreateOrUpdate(ctx, "team-a", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err == nil {
		t.Error("moving a resource group to another location succeeded")
	} else if _, code := responseError(t, err); code != "InvalidResourceGroupLocation" {
		t.Errorf("code %s", code)
	}
	widget := rgScope + "team-a/providers/Microsoft.Test/widgets/w1"
	if _, err := put(t, res, widget, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for pager := groups.NewListPager(nil); pager.More(); {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page.Value {
			names = append(names, *g.Name)
		}
	}
	if len(names) != 1 || names[0] != "team-a" {
		t.Errorf("groups %v", names)
	}
	var inGroup []string
	for pager := res.NewListByResourceGroupPager("team-a", nil); pager.More(); {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Value {
			inGroup = append(inGroup, *r.ID)
		}
	}
	if len(inGroup) != 1 || inGroup[0] != widget {
		t.Errorf("resources in group %v", inGroup)
	}

	p, err := groups.BeginDelete(ctx, "team-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PollUntilDone(ctx, fastPoll); err != nil {
		t.Fatal(err)
	}
	if ex, err := groups.CheckExistence(ctx, "team-a", nil); err != nil || ex.Success {
		t.Errorf("group still exists after delete (%v)", err)
	}
	_, err = res.GetByID(ctx, widget, "2024-01-01", nil)
	if status, code := responseError(t, err); status != 404 || code != "ResourceGroupNotFound" {
		t.Errorf("resource after group delete: %d %s", status, code)
	}
}

func TestLongRunningOperationStyles(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.PollRetryAfter = emulator.Duration(5 * time.Millisecond) })
	cred := f.platformCred(t)
	f.createGroup(t, cred, "lro")
	res := f.resources(t, cred)
	for _, style := range []emulator.LROStyle{emulator.LROSync, emulator.LROAsyncOperation, emulator.LROLocation, emulator.LROProvisioningState} {
		t.Run(string(style), func(t *testing.T) {
			f.emu.SetLRO(widgetsType, emulator.LROConfig{Write: style, Delete: style, Duration: emulator.Duration(40 * time.Millisecond)})
			id := rgScope + "lro/providers/Microsoft.Test/widgets/" + string(style)
			since := lastSeq(f)
			poller, err := res.BeginCreateOrUpdateByID(ctxT(t), id, "2024-01-01",
				armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"size": 3}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if style != emulator.LROSync && poller.Done() {
				t.Fatal("operation finished at once; want it in progress")
			}
			out, err := poller.PollUntilDone(ctxT(t), fastPoll)
			if err != nil {
				t.Fatal(err)
			}
			if st := props(out.GenericResource)["provisioningState"]; st != "Succeeded" {
				t.Errorf("provisioningState %v after the poller finished", st)
			}
			if n := len(f.emu.Audit(emulator.AuditFilter{Since: since, Service: "arm"})); style != emulator.LROSync && n < 3 {
				t.Errorf("%d ARM calls; want the initial PUT, polls and a final GET", n)
			}
			if err := del(t, res, id, "2024-01-01"); err != nil {
				t.Fatal(err)
			}
			if _, err := res.GetByID(ctxT(t), id, "2024-01-01", nil); err == nil {
				t.Error("resource still readable after delete")
			} else if _, code := responseError(t, err); code != "ResourceNotFound" {
				t.Errorf("code %s", code)
			}
		})
	}
}

func TestFailedLongRunningOperation(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "lro")
	res := f.resources(t, cred)
	for _, style := range []emulator.LROStyle{emulator.LROAsyncOperation, emulator.LROLocation, emulator.LROProvisioningState} {
		t.Run(string(style), func(t *testing.T) {
			f.emu.SetLRO(widgetsType, emulator.LROConfig{Write: style})
			f.emu.SetFaults(emulator.Faults{FailNext: []emulator.FailRule{{ResourceType: widgetsType, Method: "PUT", Count: 1, Operation: true,
				Code: "QuotaExceeded", Message: "Operation could not be completed as it results in exceeding approved quota."}}})
			_, err := put(t, res, rgScope+"lro/providers/Microsoft.Test/widgets/failing-"+string(style), "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
			if err == nil {
				t.Fatal("operation succeeded; want it to fail")
			}
			if style != emulator.LROProvisioningState {
				mustContain(t, err.Error(), "QuotaExceeded")
			} else {
				mustContain(t, err.Error(), "Failed")
			}
		})
	}
}

func TestARMErrors(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "errors")
	res := f.resources(t, cred)
	otherSub, err := armresources.NewClient("0c0c0c0c-0c0c-4c0c-8c0c-0c0c0c0c0c0c", cred, f.armOptions())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		call       func() error
		wantStatus int
		wantCode   string
		wantText   string
	}{
		{"missing api-version", func() error {
			_, err := res.GetByID(ctxT(t), rgScope+"errors", "", nil)
			return err
		}, 400, "MissingApiVersionParameter", "api-version"},
		{"unknown subscription", func() error {
			_, err := otherSub.GetByID(ctxT(t), "/subscriptions/0c0c0c0c-0c0c-4c0c-8c0c-0c0c0c0c0c0c/resourceGroups/x", "2021-04-01", nil)
			return err
		}, 404, "SubscriptionNotFound", "0c0c0c0c-0c0c-4c0c-8c0c-0c0c0c0c0c0c"},
		{"tag name with a slash", func() error {
			_, err := put(t, res, rgScope+"errors/providers/Microsoft.Test/widgets/tagged", "2024-01-01", armresources.GenericResource{
				Location: to.Ptr("westeurope"), Tags: map[string]*string{"aztenant.io/onboarded-by": to.Ptr("x"), "ok": to.Ptr("y")}})
			return err
		}, 400, "InvalidTagNameCharacters", "aztenant.io/onboarded-by"},
		{"tag value over 256 characters", func() error {
			_, err := put(t, res, rgScope+"errors/providers/Microsoft.Test/widgets/tagged", "2024-01-01", armresources.GenericResource{
				Location: to.Ptr("westeurope"), Tags: map[string]*string{"long": to.Ptr(strings.Repeat("v", 257))}})
			return err
		}, 400, "InvalidTagValueLength", "256"},
		{"missing resource group", func() error {
			_, err := put(t, res, rgScope+"nope/providers/Microsoft.Test/widgets/w", "2024-01-01", armresources.GenericResource{})
			return err
		}, 404, "ResourceGroupNotFound", "nope"},
		{"missing parent resource", func() error {
			_, err := put(t, res, rgScope+"errors/providers/Microsoft.Storage/storageAccounts/ghost/blobServices/default/containers/c", "2023-05-01", armresources.GenericResource{})
			return err
		}, 404, "ParentResourceNotFound", "ghost"},
		{"missing resource", func() error {
			_, err := res.GetByID(ctxT(t), rgScope+"errors/providers/Microsoft.Test/widgets/none", "2024-01-01", nil)
			return err
		}, 404, "ResourceNotFound", "Microsoft.Test/widgets/none"},
		{"resource group without location", func() error {
			_, err := f.groups(t, cred).CreateOrUpdate(ctxT(t), "nowhere", armresources.ResourceGroup{}, nil)
			return err
		}, 400, "LocationRequired", "location"},
		{"invalid storage account name", func() error {
			_, err := put(t, res, rgScope+"errors/providers/Microsoft.Storage/storageAccounts/Not_Valid", "2023-05-01", armresources.GenericResource{Location: to.Ptr("westeurope")})
			return err
		}, 400, "AccountNameInvalid", "Not_Valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("call succeeded")
			}
			status, code := responseError(t, err)
			if status != tt.wantStatus || code != tt.wantCode {
				t.Errorf("got %d %s, want %d %s", status, code, tt.wantStatus, tt.wantCode)
			}
			mustContain(t, err.Error(), tt.wantText)
		})
	}
}

func TestPathsMatchCaseInsensitivelyAndKeepFirstCasing(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "Team-A")
	res := f.resources(t, cred)
	id := rgScope + "Team-A/providers/Microsoft.Test/widgets/Widget1"
	if _, err := put(t, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Fatal(err)
	}
	got, err := res.GetByID(ctxT(t), strings.ToLower(id), "2024-01-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *got.ID != id {
		t.Errorf("id %s, want the casing of creation %s", *got.ID, id)
	}
	// An update through a differently cased path changes the same resource.
	if _, err := put(t, res, strings.ToUpper(id[:14])+id[14:], "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope"), Tags: map[string]*string{"v": to.Ptr("2")}}); err != nil {
		t.Fatal(err)
	}
	got, err = res.GetByID(ctxT(t), id, "2024-01-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tags["v"] == nil || *got.Tags["v"] != "2" || *got.ID != id {
		t.Errorf("after update via other casing: id %s tags %v", *got.ID, got.Tags)
	}
}

func TestOutOfBandChangeIsVisible(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "drift")
	res := f.resources(t, cred)
	id := rgScope + "drift/providers/Microsoft.Test/widgets/w"
	if _, err := put(t, res, id, "2024-01-01", armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: map[string]any{"size": 1}}); err != nil {
		t.Fatal(err)
	}
	before := len(f.emu.Audit(emulator.AuditFilter{}))
	if _, err := f.emu.PatchResource(context.Background(), strings.ToUpper(id), []byte(`{"properties":{"size":7},"tags":{"edited":"portal"}}`)); err != nil {
		t.Fatal(err)
	}
	if after := len(f.emu.Audit(emulator.AuditFilter{})); after != before {
		t.Errorf("an out-of-band change was audited as a call")
	}
	got, err := res.GetByID(ctxT(t), id, "2024-01-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	if size := props(got.GenericResource)["size"]; size != float64(7) || *got.Tags["edited"] != "portal" {
		t.Errorf("size %v tags %v", size, got.Tags)
	}
}

// lastSeq is the audit cursor before a step, so a test reads only its own calls.
func lastSeq(f *fixture) uint64 {
	all := f.emu.Audit(emulator.AuditFilter{Limit: 1})
	if len(all) == 0 {
		return 0
	}
	return all[0].Seq
}

// ARM refuses an api-version its provider does not register, naming the ones
// it does, and a malformed one; generic types take any well-formed version.
func TestAPIVersionIsChecked(t *testing.T) {
	f := newFixture(t)
	res := f.resources(t, f.platformCred(t))
	f.createGroup(t, f.platformCred(t), "versions")
	cases := []struct {
		id, version, code, msg string
	}{
		{rgScope + "versions", "2099-01-01", "InvalidApiVersionParameter", "The supported versions are '2025-04-01,2025-03-01,"},
		{rgScope + "versions/providers/Microsoft.Storage/storageAccounts/stv", "2019-06-01", "NoRegisteredProviderFound", "for API version '2019-06-01' and type 'storageAccounts'"},
		{rgScope + "versions/providers/Microsoft.Test/widgets/w", "latest", "InvalidApiVersionParameter", "The api-version 'latest' is invalid"},
	}
	for _, tc := range cases {
		_, err := res.GetByID(ctxT(t), tc.id, tc.version, nil)
		if err == nil {
			t.Fatalf("GET %s?api-version=%s succeeded", tc.id, tc.version)
		}
		if status, code := responseError(t, err); status != 400 || code != tc.code {
			t.Errorf("api-version %s: got %d %s, want 400 %s", tc.version, status, code, tc.code)
		}
		mustContain(t, err.Error(), tc.msg)
	}
	if _, err := res.GetByID(ctxT(t), rgScope+"versions", "2021-04-01", nil); err != nil {
		t.Errorf("a registered version: %v", err)
	}
	// A client pinned to an older SDK release (another operator's) writes a generated
	// type at the version that release sent, and one pinned to ours reads it.
	nsg := rgScope + "versions/providers/Microsoft.Network/networkSecurityGroups/older"
	if _, err := put(t, res, nsg, "2022-07-01", armresources.GenericResource{Location: to.Ptr("westeurope")}); err != nil {
		t.Errorf("a generated type at a version armnetwork v2.1.0 sent: %v", err)
	} else if _, err := res.GetByID(ctxT(t), nsg, "2025-05-01", nil); err != nil {
		t.Errorf("read at the pinned version: %v", err)
	}
}

// Each emulated type answers its create, update and delete with the status
// and headers Azure's service does: a raw client sees them, without a poller
// hiding the shape.
func TestAnswerShapesPerType(t *testing.T) {
	f := newFixture(t)
	cred := f.platformCred(t)
	f.createGroup(t, cred, "shapes")
	res := f.resources(t, cred)
	type shape struct {
		status       int
		asyncOp, loc bool
		body         bool
	}
	raw := func(method, id, apiVersion string, body any) (shape, error) {
		t.Helper()
		var resp *http.Response
		ctx := policy.WithCaptureResponse(ctxT(t), &resp)
		var err error
		switch method {
		case http.MethodPut:
			_, err = res.BeginCreateOrUpdateByID(ctx, id, apiVersion, body.(armresources.GenericResource), nil)
		case http.MethodDelete:
			_, err = res.BeginDeleteByID(ctx, id, apiVersion, nil)
		}
		if resp == nil {
			return shape{}, err
		}
		b, _ := runtime.Payload(resp)
		return shape{status: resp.StatusCode, asyncOp: resp.Header.Get("Azure-AsyncOperation") != "",
			loc: resp.Header.Get("Location") != "", body: len(b) > 0}, err
	}
	g := func(props map[string]any, sku map[string]any) armresources.GenericResource {
		r := armresources.GenericResource{Location: to.Ptr("westeurope"), Properties: props}
		if sku != nil {
			r.SKU = &armresources.SKU{Name: to.Ptr(sku["name"].(string))}
		}
		return r
	}
	base := rgScope + "shapes/providers/"
	for _, tc := range []struct {
		name, id, apiVersion string
		body                 armresources.GenericResource
		create, update, del  shape
	}{
		{"redis", base + "Microsoft.Cache/redis/cache1", "2024-03-01",
			g(map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}, nil),
			shape{201, true, true, true}, shape{}, shape{202, false, true, false}},
		{"storage account", base + "Microsoft.Storage/storageAccounts/shapes1", "2023-05-01",
			armresources.GenericResource{Location: to.Ptr("westeurope"), Kind: to.Ptr("StorageV2"), SKU: &armresources.SKU{Name: to.Ptr("Standard_LRS")}},
			shape{202, false, true, false}, shape{200, false, false, true}, shape{200, false, false, false}},
		{"postgres flexible server", base + "Microsoft.DBforPostgreSQL/flexibleServers/pg1", "2024-08-01",
			armresources.GenericResource{Location: to.Ptr("westeurope"), SKU: &armresources.SKU{Name: to.Ptr("Standard_B1ms")}, Properties: map[string]any{"version": "16"}},
			shape{202, true, true, false}, shape{}, shape{}},
		{"user-assigned identity", base + "Microsoft.ManagedIdentity/userAssignedIdentities/id1", "2023-01-31",
			g(nil, nil), shape{201, false, false, true}, shape{200, false, false, true}, shape{200, false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := raw(http.MethodPut, tc.id, tc.apiVersion, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.create {
				t.Errorf("create answered %+v, want %+v", got, tc.create)
			}
			if tc.update.status != 0 {
				if got, err = raw(http.MethodPut, tc.id, tc.apiVersion, tc.body); err != nil || got != tc.update {
					t.Errorf("update answered %+v (%v), want %+v", got, err, tc.update)
				}
			}
			if tc.del.status != 0 {
				if got, err = raw(http.MethodDelete, tc.id, tc.apiVersion, nil); err != nil || got != tc.del {
					t.Errorf("delete answered %+v (%v), want %+v", got, err, tc.del)
				}
			}
		})
	}
}

// AuditSpan says where the audit ring starts and ends, so a reader counting calls since a
// position knows whether the ring still holds them all.
func TestAuditSpan(t *testing.T) {
	f := newFixture(t, func(c *emulator.Config) { c.AuditSize = 4 })
	if newest, oldest := f.emu.AuditSpan(); oldest != 0 || newest != 0 {
		t.Fatalf("empty: newest %d, oldest %d", newest, oldest)
	}
	cred := f.platformCred(t)
	f.createGroup(t, cred, "span")
	newest, oldest := f.emu.AuditSpan()
	all := f.emu.Audit(emulator.AuditFilter{})
	if len(all) == 0 || all[0].Seq != oldest || all[len(all)-1].Seq != newest {
		t.Fatalf("span %d..%d, the ring holds %+v", oldest, newest, all)
	}
	for range 3 {
		f.createGroup(t, cred, "span")
	}
	newest, oldest = f.emu.AuditSpan()
	if newest-oldest != 3 || len(f.emu.Audit(emulator.AuditFilter{})) != 4 {
		t.Errorf("a full ring of 4: span %d..%d", oldest, newest)
	}
	if err := f.emu.Reset(); err != nil {
		t.Fatal(err)
	}
	if n, o := f.emu.AuditSpan(); n != newest || o != 0 {
		t.Errorf("after Reset: span %d..%d, want nothing held and the newest still %d", o, n, newest)
	}
}
