package kinds_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

func differencesOf(obj azurev1alpha1.Resource) map[string]azurev1alpha1.Difference {
	out := map[string]azurev1alpha1.Difference{}
	for _, d := range obj.AzureStatus().Differences {
		out[d.Path] = d
	}
	return out
}

func inSync(obj azurev1alpha1.Resource) *metav1.Condition {
	return meta.FindStatusCondition(obj.AzureStatus().Conditions, reconcilers.ConditionInSync)
}

// reconcile-policy observe reads a resource that exists in Azure (made outside
// aztenant), shows each difference from the spec in status with both values and
// writes nothing; switching to manage writes exactly those differences, once.
// An observed object whose resource does not exist says so; deleting an
// observed object deletes nothing in Azure.
func TestObservePolicy(t *testing.T) {
	t.Parallel()
	const ns = "obs"
	s := newStack(t, ns)
	ctx := t.Context()
	rgs, err := armresources.NewResourceGroupsClient(subID, s.PlatformCredential(t), &arm.ClientOptions{ClientOptions: s.Emu.ClientOptions(), DisableRPRegistration: true})
	must(t, err)
	_, err = rgs.CreateOrUpdate(ctx, "obs-legacy", armresources.ResourceGroup{Location: to.Ptr("westeurope"),
		Tags: map[string]*string{"env": to.Ptr("prod"), "cost": to.Ptr("1234")}}, nil)
	must(t, err)
	mark := lastSeq(s.Stack)

	observe := map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyObserve)}
	rg := resourceGroup(ns, "obs-legacy", observe, map[string]string{"env": "dev", "team": "a"})
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonObserved)
	if c := inSync(rg); c == nil || c.Status != metav1.ConditionFalse || c.Reason != reconcilers.ReasonDiffers {
		t.Fatalf("InSync = %+v, want False/Differs", c)
	}
	diffs := differencesOf(rg)
	if d := diffs["tags.env"]; d.Desired != `"dev"` || d.Actual != `"prod"` {
		t.Errorf("tags.env difference %+v", d)
	}
	if d := diffs["tags.team"]; d.Desired != `"a"` || d.Actual != "(absent)" {
		t.Errorf("tags.team difference %+v", d)
	}
	if _, ok := diffs["tags."+reconcilers.TagOwner]; !ok {
		t.Errorf("the owner marker manage would write is not shown: %+v", rg.Status.Differences)
	}
	if _, ok := diffs["tags.cost"]; ok {
		t.Errorf("a tag the spec does not manage is shown as a difference: %+v", rg.Status.Differences)
	}
	if len(diffs) != 3 {
		t.Errorf("differences %+v, want tags.env, tags.team and the owner marker", rg.Status.Differences)
	}
	if w := s.writes(mark, "/resourceGroups/obs-legacy"); len(w) != 0 {
		t.Fatalf("observe wrote: %s", methods(w))
	}

	// manage writes exactly the differences shown: one PUT, then it matches.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	rg.Annotations[reconcilers.AnnotationReconcilePolicy] = string(reconcilers.PolicyManage)
	must(t, s.Client.Update(ctx, rg))
	until(t, "managed", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
		c := meta.FindStatusCondition(rg.Status.Conditions, reconcilers.ConditionReady)
		return c != nil && c.Reason == reconcilers.ReasonSucceeded
	})
	if w := s.writes(mark, "/resourceGroups/obs-legacy"); len(w) != 1 || w[0].Method != "PUT" {
		t.Errorf("manage after observe wrote %s, want one PUT", methods(w))
	}
	tags := s.azureTags(t, rgID("obs-legacy"))
	if tags["env"] != "dev" || tags["team"] != "a" || tags["cost"] != "1234" || tags[reconcilers.TagOwner] == "" {
		t.Errorf("tags in Azure %v: want the spec's, the marker, and cost kept", tags)
	}
	if inSync(rg) != nil || len(rg.Status.Differences) != 0 {
		t.Errorf("a managed object still shows observe's status: %+v %+v", inSync(rg), rg.Status.Differences)
	}

	// Observed again, Azure now matches.
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
	rg.Annotations[reconcilers.AnnotationReconcilePolicy] = string(reconcilers.PolicyObserve)
	must(t, s.Client.Update(ctx, rg))
	until(t, "observed in sync", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(rg), rg))
		c := inSync(rg)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == reconcilers.ReasonMatches
	})

	// A resource that does not exist is shown as such, and not created.
	missing := resourceGroup(ns, "obs-missing", observe, nil)
	s.Create(t, missing)
	s.WaitReady(t, missing, metav1.ConditionTrue, reconcilers.ReasonObserved)
	if c := inSync(missing); c == nil || c.Reason != reconcilers.ReasonNotInAzure || !strings.Contains(c.Message, "would be created") {
		t.Errorf("InSync of a missing resource = %+v", c)
	}

	// Deleting observed objects deletes nothing in Azure.
	mark = lastSeq(s.Stack)
	for _, o := range []*resourcesv1alpha1.ResourceGroup{rg, missing} {
		must(t, s.Client.Delete(ctx, o))
	}
	until(t, "observed objects gone", func() bool { return s.Gone(rg) && s.Gone(missing) })
	if w := s.writes(mark, "/resourceGroups/obs-legacy"); len(w) != 0 {
		t.Errorf("deleting an observed object called %s", methods(w))
	}
	if _, err := s.Emu.Resource(rgID("obs-legacy")); err != nil {
		t.Errorf("the resource group is gone from Azure: %v", err)
	}
}

// A manifest written for Azure Service Operator: its reconcile-policy skip is
// honoured (as observe: ASO's skip still reads), so nothing is created; its
// credential-from is ignored with a warning event saying why.
func TestASOAnnotations(t *testing.T) {
	t.Parallel()
	const ns = "asoann"
	s := newStack(t, ns)
	ctx := t.Context()
	rg := resourceGroup(ns, "asoann-app", map[string]string{
		"serviceoperator.azure.com/reconcile-policy": "skip",
		"serviceoperator.azure.com/credential-from":  "aso-credential",
	}, nil)
	s.Create(t, rg)
	s.WaitReady(t, rg, metav1.ConditionTrue, reconcilers.ReasonObserved)
	if c := inSync(rg); c == nil || c.Reason != reconcilers.ReasonNotInAzure {
		t.Errorf("InSync = %+v, want NotFoundInAzure", c)
	}
	if w := s.writes(0, "/resourceGroups/asoann-app"); len(w) != 0 {
		t.Errorf("ASO's skip was not honoured: %s", methods(w))
	}
	until(t, "a warning about credential-from", func() bool {
		var evs corev1.EventList
		must(t, s.Client.List(ctx, &evs, client.InNamespace(ns)))
		for _, e := range evs.Items {
			if e.Reason == reconcilers.EventIgnoredAnnotation && e.Type == corev1.EventTypeWarning && e.InvolvedObject.Name == rg.Name &&
				strings.Contains(e.Message, "serviceoperator.azure.com/credential-from") && strings.Contains(e.Message, "Identity") {
				return true
			}
		}
		return false
	})

	// An unknown value is refused rather than guessed (ASO would manage).
	bad := resourceGroup(ns, "asoann-bad", map[string]string{"serviceoperator.azure.com/reconcile-policy": "Skip"}, nil)
	s.Create(t, bad)
	s.WaitReady(t, bad, metav1.ConditionFalse, reconcilers.ReasonInvalidSpec)
	if w := s.writes(0, "/resourceGroups/asoann-bad"); len(w) != 0 {
		t.Errorf("an unknown ASO policy wrote: %s", methods(w))
	}
}

// An observed server whose password Secret was rotated shows the password's
// path as a difference with neither value, and the password is nowhere in the
// object; nothing is written until the object is managed again.
func TestObservedWriteOnlyValueIsNotShown(t *testing.T) {
	t.Parallel()
	const ns = "obspg"
	const first, rotated = "First-Passw0rd-1", "Rotated-Passw0rd-2"
	s := newStack(t, ns)
	ctx := t.Context()
	s.Create(t, resourceGroup(ns, "obspg-rg", nil, nil))
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "obspg-admin"}, StringData: map[string]string{"password": first}}
	must(t, s.Client.Create(ctx, secret))
	srv := &dbforpostgresqlv1alpha1.FlexibleServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "obspg-app"},
		Spec: dbforpostgresqlv1alpha1.FlexibleServerSpec{
			Owner: &azurev1alpha1.OwnerReference{Name: "obspg-rg"}, Location: "westeurope", Version: "16",
			Sku:                        dbforpostgresqlv1alpha1.FlexibleServerSku{Name: "Standard_B1ms", Tier: "Burstable"},
			AdministratorLogin:         "pgadmin",
			AdministratorLoginPassword: &azurev1alpha1.SecretKeyReference{Name: "obspg-admin", Key: "password"},
		},
	}
	s.Create(t, srv)
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonSucceeded)

	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(srv), srv))
	base := srv.DeepCopy()
	srv.Annotations = map[string]string{reconcilers.AnnotationReconcilePolicy: string(reconcilers.PolicyObserve)}
	must(t, s.Client.Patch(ctx, srv, client.MergeFrom(base)))
	s.WaitReady(t, srv, metav1.ConditionTrue, reconcilers.ReasonObserved)
	mark := lastSeq(s.Stack)
	must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(secret), secret))
	secret.StringData = map[string]string{"password": rotated}
	must(t, s.Client.Update(ctx, secret))
	until(t, "the rotated password shown as a difference", func() bool {
		must(t, s.Client.Get(ctx, client.ObjectKeyFromObject(srv), srv))
		d, ok := differencesOf(srv)["properties.administratorLoginPassword"]
		return ok && d.Desired == "(not shown)" && d.Actual == "(not shown)"
	})
	raw, err := json.Marshal(srv)
	must(t, err)
	if strings.Contains(string(raw), first) || strings.Contains(string(raw), rotated) {
		t.Error("a password is in the observed object")
	}
	if w := s.writes(mark, "/flexibleServers/obspg-app"); len(w) != 0 {
		t.Errorf("observe wrote: %s", methods(w))
	}
}
