package charttest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/identity/reservation"
	"github.com/aztenant/aztenant/internal/crdinstall"
	"k8s.io/apimachinery/pkg/runtime"
	"reflect"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// files/crds.yaml, the chart's index of the CRDs the operator applies, is
// what api/crds holds (make generate writes it).
func TestCRDIndexMatchesAPI(t *testing.T) {
	generated, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var want []crdEntry
	for _, c := range generated {
		want = append(want, crdEntry{Name: c.Name, Group: c.Spec.Group, Kind: c.Spec.Names.Kind, Plural: c.Spec.Names.Plural})
	}
	if got := crdIndex(t); !slices.Equal(got, want) {
		t.Errorf("charts/aztenant/files/crds.yaml differs from api/crds (%d entries, want %d): run `make generate` and commit", len(got), len(want))
	}
}

// fullValues sets most values at once: the emulator's cloud, a platform
// identity, restricted tokens, a CRD pattern and a ServiceMonitor.
func fullValues() map[string]any {
	return map[string]any{
		"replicaCount": 2,
		"image":        map[string]any{"repository": "registry.example/aztenant", "tag": "dev", "pullPolicy": "Always"},
		"crds":         map[string]any{"pattern": "resources.aztenant.io/*;storage.aztenant.io/StorageAccount", "keep": false},
		"azure": map[string]any{
			"authorityHost": "https://127.0.0.1:8443/", "armEndpoint": "https://127.0.0.1:8444/",
			"armAudience": "https://management.core.windows.net/",
			"caBundle":    map[string]any{"configMap": map[string]any{"name": "emulator-ca", "key": "ca.pem"}},
		},
		"operator": map[string]any{
			"servedNamespaces": []string{"team-a", "team-b"}, "syncPeriod": "10m", "secretRefreshPeriod": "168h",
			"defaultReconcilePolicy": "detach-on-delete", "workers": 8, "logLevel": "debug",
			"extraArgs": []string{"--zap-devel"},
		},
		"tracing":          map[string]any{"otlpEndpoint": "otel-collector.observability:4317", "insecure": true},
		"metrics":          map[string]any{"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]string{"release": "prom"}}},
		"platformIdentity": map[string]any{"enabled": true, "clientID": "11111111-2222-3333-4444-555555555555", "tenantID": "72f988bf-86f1-41af-91ab-2d7cd011db47", "subscriptionID": "00000000-0000-0000-0000-0000000000cc"},
		"rbac":             map[string]any{"serviceAccountTokenNames": []string{"azure"}},
		"nodeSelector":     map[string]string{"kubernetes.io/os": "linux"},
		"tolerations":      []any{map[string]any{"key": "CriticalAddonsOnly", "operator": "Exists"}},
		"affinity": map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"weight": 100, "podAffinityTerm": map[string]any{"topologyKey": "kubernetes.io/hostname",
				"labelSelector": map[string]any{"matchLabels": map[string]string{"app.kubernetes.io/name": "aztenant"}}}}}}},
	}
}

func TestLintStrict(t *testing.T) {
	for name, values := range map[string]map[string]any{"defaults": nil, "full": fullValues()} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"lint", "--strict", chartDir(t), "--namespace", namespace, "--kube-version", kubeVersion}, valuesFile(t, values)...)
			out, errOut, err := helm(t, args...)
			if err != nil {
				t.Fatalf("helm lint --strict: %v\n%s%s", err, out, errOut)
			}
			if !strings.Contains(out, "0 chart(s) failed") || strings.Contains(out, "[WARNING]") || strings.Contains(out, "[ERROR]") {
				t.Fatalf("helm lint --strict:\n%s", out)
			}
		})
	}
}

func TestTemplateDefaults(t *testing.T) {
	m := render(t, nil)

	kinds := map[string]int{}
	for _, o := range m {
		kinds[o.GetKind()]++
		if o.GetLabels()["app.kubernetes.io/instance"] != release || o.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s %s lacks the standard labels: %v", o.GetKind(), o.GetName(), o.GetLabels())
		}
	}
	wantKinds := map[string]int{
		"ServiceAccount": 1, "ClusterRole": 3, "ClusterRoleBinding": 1,
		"Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 1,
		// The provisioner accounts' reservation (its parameter and 4
		// policies) and the guard on the CRDs the operator creates.
		"ConfigMap": 1, "ValidatingAdmissionPolicy": 5, "ValidatingAdmissionPolicyBinding": 5,
	}
	if !equality.Semantic.DeepEqual(kinds, wantKinds) {
		t.Errorf("rendered kinds %v, want %v", kinds, wantKinds)
	}

	// No CRD is in the release: the operator applies them.
	if n := len(m.ofKind("CustomResourceDefinition")); n != 0 {
		t.Errorf("the chart renders %d CRDs", n)
	}

	// The Deployment.
	d := m.deployment(t)
	if d.Namespace != namespace || d.Name != fullname || *d.Spec.Replicas != 1 {
		t.Errorf("Deployment %s/%s replicas %d", d.Namespace, d.Name, *d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Image != "ghcr.io/aztenant/aztenant-operator:v0.1.0" || c.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("image %q pull policy %q", c.Image, c.ImagePullPolicy)
	}
	if pod.ServiceAccountName != fullname {
		t.Errorf("serviceAccountName %q", pod.ServiceAccountName)
	}
	if _, ok := d.Spec.Template.Labels["azure.workload.identity/use"]; ok {
		t.Error("pod labelled for workload identity without a platform identity")
	}
	psc := pod.SecurityContext
	if psc == nil || !ptr.Deref(psc.RunAsNonRoot, false) || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v", psc)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("no container securityContext")
	case !ptr.Deref(sc.RunAsNonRoot, false):
		t.Error("runAsNonRoot not true")
	case !ptr.Deref(sc.ReadOnlyRootFilesystem, false):
		t.Error("readOnlyRootFilesystem not true")
	case ptr.Deref(sc.AllowPrivilegeEscalation, true):
		t.Error("allowPrivilegeEscalation not false")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v, want drop ALL", sc.Capabilities)
	case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("seccompProfile %+v", sc.SeccompProfile)
	}
	if c.Resources.Requests.Cpu().String() != "100m" || c.Resources.Requests.Memory().String() != "128Mi" ||
		c.Resources.Limits.Cpu().String() != "1" || c.Resources.Limits.Memory().String() != "512Mi" {
		t.Errorf("resources %+v", c.Resources)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != 8080 || ports["health"] != 8081 {
		t.Errorf("ports %v", ports)
	}
	for probe, path := range map[*corev1.Probe]string{c.StartupProbe: "/healthz", c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "health" {
			t.Errorf("probe for %s: %+v", path, probe)
		}
	}
	a := args(t, d)
	wantFlag(t, a, "leader-elect", "")
	wantFlag(t, a, "leader-election-namespace", namespace)
	wantFlag(t, a, "health-probe-bind-address", ":8081")
	wantFlag(t, a, "metrics-bind-address", ":8080")
	wantFlag(t, a, "azure-cloud", "AzurePublicCloud")
	wantFlag(t, a, "served-namespaces", "tenants")
	wantFlag(t, a, "sync-period", "1h")
	wantFlag(t, a, "secret-refresh-period", "24h")
	wantFlag(t, a, "default-reconcile-policy", "manage")
	wantFlag(t, a, "workers", "4")
	wantFlag(t, a, "serviceaccount-token-expiry", "1h")
	wantFlag(t, a, "log-level", "info")
	wantFlag(t, a, "crd-pattern", "*")
	wantFlag(t, a, "crd-management", "auto")
	wantNoFlag(t, a, "zap-log-level")
	for _, absent := range []string{"azure-authority-host", "azure-arm-endpoint", "azure-arm-audience", "azure-ca-bundle", "otlp-endpoint", "otlp-insecure"} {
		wantNoFlag(t, a, absent)
	}

	// ServiceAccount, plain.
	sa := m.serviceAccount(t)
	if sa.Name != fullname || sa.Namespace != namespace || len(sa.Annotations) != 0 {
		t.Errorf("ServiceAccount %s/%s annotations %v", sa.Namespace, sa.Name, sa.Annotations)
	}

	// The ClusterRole is files/role.yaml under the chart's name, bound to the
	// ServiceAccount, with tokens only for the reserved provisioner accounts.
	role := m.clusterRole(t)
	if role.Name != fullname {
		t.Errorf("ClusterRole name %q", role.Name)
	}
	want := generatedRole(t).Rules
	for i := range want {
		if slices.Equal(want[i].Resources, []string{"serviceaccounts/token"}) {
			want[i].ResourceNames = []string{"aztenant-provisioner"}
		}
	}
	// Then the CRD writes: create, and update by name of every selected CRD.
	crdRules := []rbacv1.PolicyRule{
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"create"}},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"update"}, ResourceNames: indexNames(t)},
	}
	if !equality.Semantic.DeepEqual(role.Rules, append(want, crdRules...)) {
		t.Errorf("ClusterRole rules differ from files/role.yaml and the CRD rules:\n%+v", role.Rules)
	}
	// The operator serves a kind once its CRD is installed: it watches CRDs
	// (their metadata) and reads the one that changed.
	if !grants(role.Rules, "apiextensions.k8s.io", "customresourcedefinitions", "get", "list", "watch") {
		t.Errorf("ClusterRole cannot watch CustomResourceDefinitions: %+v", role.Rules)
	}
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "customresourcedefinitions") && (slices.Contains(r.Verbs, "delete") || slices.Contains(r.Verbs, "patch") || slices.Contains(r.Verbs, "*")) {
			t.Errorf("ClusterRole may delete or patch CRDs: %+v", r)
		}
	}
	var crb rbacv1.ClusterRoleBinding
	m.one(t, "ClusterRoleBinding", &crb)
	if crb.RoleRef.Name != fullname || len(crb.Subjects) != 1 || crb.Subjects[0].Name != fullname || crb.Subjects[0].Namespace != namespace {
		t.Errorf("ClusterRoleBinding %+v", crb)
	}

	// Leader election: leases and events in the release namespace only.
	var r rbacv1.Role
	m.one(t, "Role", &r)
	if r.Namespace != namespace {
		t.Errorf("leader-election Role in %q", r.Namespace)
	}
	if !grants(r.Rules, "coordination.k8s.io", "leases", "create", "get", "update") || !grants(r.Rules, "", "events", "create", "patch") {
		t.Errorf("leader-election Role rules %+v", r.Rules)
	}
	var rb rbacv1.RoleBinding
	m.one(t, "RoleBinding", &rb)
	if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != r.Name || rb.Subjects[0].Name != fullname {
		t.Errorf("leader-election RoleBinding %+v", rb)
	}

	// The metrics Service selects the operator pods.
	var svc corev1.Service
	m.one(t, "Service", &svc)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("metrics Service %+v does not target the pods %v", svc.Spec, d.Spec.Template.Labels)
	}
	if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Error("Deployment selector does not match its pods")
	}
}

func grants(rules []rbacv1.PolicyRule, group, resource string, verbs ...string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) {
			for _, v := range verbs {
				if !slices.Contains(r.Verbs, v) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// crds.pattern selects, in the chart (the operator's update rights, the user
// roles) and in the operator (the same pattern as --crd-pattern, read by
// crdinstall), the same CRDs.
func TestTemplateCRDSelection(t *testing.T) {
	const (
		identities = "identities.identity.aztenant.io"
		plans      = "plans.plan.aztenant.io"
		tenants    = "tenants.tenancy.aztenant.io"
	)
	all, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		crds map[string]any
		want []string
	}{
		{"ASO-style string", map[string]any{"pattern": "resources.aztenant.io/*;storage.aztenant.io/StorageAccount"},
			[]string{identities, plans, "resourcegroups.resources.aztenant.io", "storageaccounts.storage.aztenant.io", tenants}},
		{"list of groups and CRD names", map[string]any{"pattern": []string{"storage.aztenant.io", "redis.cache.aztenant.io"}},
			append([]string{"redis.cache.aztenant.io", identities, plans, tenants},
				generatedIn("storage")...)},
		{"kind glob", map[string]any{"pattern": "dbforpostgresql.aztenant.io/Flexible*"},
			[]string{"flexibleservers.dbforpostgresql.aztenant.io", "flexibleserversadministrators.dbforpostgresql.aztenant.io",
				"flexibleserversadvancedthreatprotectionsettings.dbforpostgresql.aztenant.io", "flexibleserversbackups.dbforpostgresql.aztenant.io",
				"flexibleserversconfigurations.dbforpostgresql.aztenant.io", "flexibleserversdatabases.dbforpostgresql.aztenant.io",
				"flexibleserversfirewallrules.dbforpostgresql.aztenant.io", "flexibleserversvirtualendpoints.dbforpostgresql.aztenant.io", identities, plans, tenants}},
		{"case-insensitive, ? and spaces", map[string]any{"pattern": " STORAGE.aztenant.io/storageaccount ; managedidentity.aztenant.io/UserAssignedIdentit? "},
			[]string{identities, plans, "storageaccounts.storage.aztenant.io", tenants, "userassignedidentities.managedidentity.aztenant.io"}},
		{"empty pattern keeps identity and tenancy", map[string]any{"pattern": ""}, []string{identities, plans, tenants}},
		{"empty list keeps identity and tenancy", map[string]any{"pattern": []string{}}, []string{identities, plans, tenants}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := render(t, map[string]any{"crds": tc.crds})
			got := crdUpdateNames(t, m)
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("CRDs the operator may update\n got %q\nwant %q", got, tc.want)
			}
			pattern, err := crdinstall.ParsePattern(flagValue(t, args(t, m.deployment(t)), "crd-pattern"))
			if err != nil {
				t.Fatal(err)
			}
			var operator []string
			for _, c := range pattern.Select(all) {
				operator = append(operator, c.Name)
			}
			slices.Sort(operator)
			if !slices.Equal(operator, tc.want) {
				t.Errorf("CRDs the operator applies with --crd-pattern\n got %q\nwant %q", operator, tc.want)
			}
		})
	}

	crdDeletes := func(m manifest) (names []string, any bool) {
		for _, r := range m.clusterRole(t).Rules {
			if slices.Contains(r.Resources, "customresourcedefinitions") && (slices.Contains(r.Verbs, "delete") || slices.Contains(r.Verbs, "*")) {
				any = true
				names = append(names, r.ResourceNames...)
			}
		}
		return names, any
	}
	t.Run("activation pattern: the operator deletes no CRD", func(t *testing.T) {
		if names, any := crdDeletes(render(t, nil)); any {
			t.Errorf("the operator may delete CRDs: %v", names)
		}
	})
	t.Run("activation tenants: the operator may delete the selected Azure kinds' CRDs, never the core ones", func(t *testing.T) {
		m := render(t, map[string]any{"crds": map[string]any{"activation": "tenants", "unnamedFor": "90s", "pattern": "storage.aztenant.io/StorageAccount;cache.aztenant.io/*"}})
		a := args(t, m.deployment(t))
		wantFlag(t, a, "crd-management", "tenants")
		wantFlag(t, a, "crd-unnamed-for", "90s")
		core := func(n string) bool {
			return strings.HasSuffix(n, ".identity.aztenant.io") || strings.HasSuffix(n, ".tenancy.aztenant.io") || strings.HasSuffix(n, ".plan.aztenant.io")
		}
		names, _ := crdDeletes(m)
		if !slices.Contains(names, "storageaccounts.storage.aztenant.io") || !slices.Contains(names, "redis.cache.aztenant.io") {
			t.Errorf("delete of CRDs %v: want the selected kinds'", names)
		}
		for _, n := range names {
			if core(n) || n == "storageaccountsblobservices.storage.aztenant.io" {
				t.Errorf("the operator may delete CRD %s: a core kind's, or one the pattern does not select", n)
			}
		}
		updates := crdUpdateNames(t, m)
		for _, n := range updates {
			if !core(n) && !slices.Contains(names, n) {
				t.Errorf("CRD %s may be updated but not deleted: want the same Azure kinds in both", n)
			}
		}
		for _, n := range names {
			if !slices.Contains(updates, n) {
				t.Errorf("CRD %s may be deleted but not updated", n)
			}
		}
	})

	t.Run("install false: no CRD writes, the operator applies none", func(t *testing.T) {
		m := render(t, map[string]any{"crds": map[string]any{"install": false}})
		if names := crdUpdateNames(t, m); names != nil {
			t.Errorf("the operator may update CRDs: %v", names)
		}
		if grants(m.clusterRole(t).Rules, "apiextensions.k8s.io", "customresourcedefinitions", "create") {
			t.Error("the operator may create CRDs")
		}
		wantFlag(t, args(t, m.deployment(t)), "crd-management", "none")
		if n := len(m.ofKind("ValidatingAdmissionPolicy")); n != 4 {
			t.Errorf("%d ValidatingAdmissionPolicies, want the 4 of the reservation", n)
		}
	})
}

func TestTemplateClouds(t *testing.T) {
	t.Run("sovereign cloud", func(t *testing.T) {
		a := args(t, render(t, map[string]any{"azure": map[string]any{"cloud": "AzureUSGovernment"}}).deployment(t))
		wantFlag(t, a, "azure-cloud", "AzureUSGovernment")
		wantNoFlag(t, a, "azure-ca-bundle")
	})
	for _, source := range []string{"configMap", "secret"} {
		t.Run("emulator with a CA bundle from a "+source, func(t *testing.T) {
			d := render(t, map[string]any{"azure": map[string]any{
				"authorityHost": "https://emulator.azure-emulator:8443/", "armEndpoint": "https://emulator.azure-emulator:8444/",
				"armAudience": "https://management.core.windows.net/",
				"caBundle":    map[string]any{source: map[string]any{"name": "emulator-ca", "key": "ca.pem"}},
			}}).deployment(t)
			a := args(t, d)
			wantFlag(t, a, "azure-cloud", "AzurePublicCloud")
			wantFlag(t, a, "azure-authority-host", "https://emulator.azure-emulator:8443/")
			wantFlag(t, a, "azure-arm-endpoint", "https://emulator.azure-emulator:8444/")
			wantFlag(t, a, "azure-arm-audience", "https://management.core.windows.net/")
			wantFlag(t, a, "azure-ca-bundle", "/etc/aztenant/azure-ca/ca.pem")

			var mount *corev1.VolumeMount
			for i, vm := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
				if vm.Name == "azure-ca" {
					mount = &d.Spec.Template.Spec.Containers[0].VolumeMounts[i]
				}
			}
			if mount == nil || !mount.ReadOnly || mount.MountPath != "/etc/aztenant/azure-ca" {
				t.Fatalf("CA bundle mount %+v, want read-only at /etc/aztenant/azure-ca", mount)
			}
			var vol *corev1.Volume
			for i, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == "azure-ca" {
					vol = &d.Spec.Template.Spec.Volumes[i]
				}
			}
			switch {
			case vol == nil:
				t.Fatal("no azure-ca volume")
			case source == "configMap" && (vol.ConfigMap == nil || vol.ConfigMap.Name != "emulator-ca" || vol.ConfigMap.Items[0].Key != "ca.pem"):
				t.Errorf("volume %+v", vol.VolumeSource)
			case source == "secret" && (vol.Secret == nil || vol.Secret.SecretName != "emulator-ca" || vol.Secret.Items[0].Key != "ca.pem"):
				t.Errorf("volume %+v", vol.VolumeSource)
			}
		})
	}
}

func TestTemplateWorkloadIdentity(t *testing.T) {
	const clientID, tenantID, subID = "11111111-2222-3333-4444-555555555555", "72f988bf-86f1-41af-91ab-2d7cd011db47", "00000000-0000-0000-0000-0000000000cc"
	m := render(t, map[string]any{
		"platformIdentity": map[string]any{"enabled": true, "clientID": clientID, "tenantID": tenantID, "subscriptionID": subID,
			"oidcIssuerURL": "https://oidc.example.com/abc/"},
		"serviceAccount": map[string]any{"annotations": map[string]string{"example.com/owner": "platform"}},
		"rbac":           map[string]any{"serviceAccountTokenNames": []string{"azure"}},
	})
	// The operator onboards with the platform Identity, which it keeps in
	// place itself for its own ServiceAccount (Helm cannot create an object
	// of a kind the same release installs); it may mint that ServiceAccount's
	// tokens even with names restricted.
	a := args(t, m.deployment(t))
	wantFlag(t, a, "platform-identity", namespace+"/"+fullname+"-platform")
	wantFlag(t, a, "platform-identity-service-account", fullname)
	wantFlag(t, a, "platform-identity-client-id", clientID)
	wantFlag(t, a, "platform-identity-tenant-id", tenantID)
	wantFlag(t, a, "platform-identity-subscription-id", subID)
	wantFlag(t, a, "oidc-issuer-url", "https://oidc.example.com/abc/")
	var tokenNames []string
	for _, r := range m.clusterRole(t).Rules {
		if slices.Contains(r.Resources, "serviceaccounts/token") {
			tokenNames = r.ResourceNames
		}
	}
	if !slices.Equal(tokenNames, []string{"azure", fullname}) {
		t.Errorf("serviceaccounts/token resourceNames %v, want the tenants' and the operator's own", tokenNames)
	}
	if none := render(t, nil); slices.ContainsFunc(args(t, none.deployment(t)), func(s string) bool { return strings.HasPrefix(s, "--platform-identity") }) {
		t.Error("--platform-identity without platformIdentity.enabled")
	}

	sa := m.serviceAccount(t)
	want := map[string]string{
		"azure.workload.identity/client-id": clientID, "azure.workload.identity/tenant-id": tenantID, "example.com/owner": "platform",
	}
	if !equality.Semantic.DeepEqual(sa.Annotations, want) {
		t.Errorf("ServiceAccount annotations %v, want %v", sa.Annotations, want)
	}
	if sa.Labels["azure.workload.identity/use"] != "true" {
		t.Errorf("ServiceAccount labels %v", sa.Labels)
	}
	if got := m.deployment(t).Spec.Template.Labels["azure.workload.identity/use"]; got != "true" {
		t.Errorf("pod label azure.workload.identity/use=%q, want \"true\"", got)
	}
}

func TestTemplateServiceAccountTokenNames(t *testing.T) {
	names := []string{"azure", "azure-ci"}
	// crds.install false: the CRD rules (TestTemplateDefaults) are not here.
	role := render(t, map[string]any{"rbac": map[string]any{"serviceAccountTokenNames": names}, "crds": map[string]any{"install": false}}).clusterRole(t)
	generated := generatedRole(t).Rules

	var tokenRules, others []rbacv1.PolicyRule
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "serviceaccounts/token") {
			tokenRules = append(tokenRules, r)
		} else {
			others = append(others, r)
		}
	}
	want := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}, ResourceNames: names}
	if len(tokenRules) != 1 || !equality.Semantic.DeepEqual(tokenRules[0], want) {
		t.Errorf("token rules %+v, want %+v", tokenRules, want)
	}
	var generatedOthers []rbacv1.PolicyRule
	for _, r := range generated {
		if !slices.Contains(r.Resources, "serviceaccounts/token") {
			generatedOthers = append(generatedOthers, r)
		}
	}
	if !equality.Semantic.DeepEqual(others, generatedOthers) {
		t.Errorf("the other rules changed:\n got %+v\nwant %+v", others, generatedOthers)
	}
	for _, r := range role.Rules {
		if len(r.ResourceNames) > 0 && !slices.Equal(r.Resources, []string{"serviceaccounts/token"}) {
			t.Errorf("resourceNames leaked into rule %+v", r)
		}
	}
}

func TestTemplateValues(t *testing.T) {
	t.Run("full", func(t *testing.T) {
		m := render(t, fullValues())
		d := m.deployment(t)
		if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "registry.example/aztenant:dev" {
			t.Errorf("replicas %d image %q", *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
		}
		a := args(t, d)
		wantFlag(t, a, "served-namespaces", "team-a,team-b")
		wantFlag(t, a, "sync-period", "10m")
		wantFlag(t, a, "secret-refresh-period", "168h")
		wantFlag(t, a, "default-reconcile-policy", "detach-on-delete")
		wantFlag(t, a, "workers", "8")
		wantFlag(t, a, "otlp-endpoint", "otel-collector.observability:4317")
		wantFlag(t, a, "otlp-insecure", "")
		wantFlag(t, a, "log-level", "debug")
		wantFlag(t, a, "zap-devel", "")
		spec := d.Spec.Template.Spec
		if spec.NodeSelector["kubernetes.io/os"] != "linux" || len(spec.Tolerations) != 1 || spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
			t.Errorf("scheduling: nodeSelector %v tolerations %v affinity %+v", spec.NodeSelector, spec.Tolerations, spec.Affinity)
		}
		sms := m.ofKind("ServiceMonitor")
		if len(sms) != 1 || sms[0].GetLabels()["release"] != "prom" {
			t.Fatalf("ServiceMonitor %v", sms)
		}
		endpoints, _, _ := unstructured.NestedSlice(sms[0].Object, "spec", "endpoints")
		if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != "metrics" {
			t.Errorf("ServiceMonitor endpoints %v", endpoints)
		}
	})
	t.Run("insecure settings are off unless asked for by name", func(t *testing.T) {
		a := args(t, render(t, nil).deployment(t))
		wantNoFlag(t, a, "insecure-allow-unreserved-service-accounts")
		wantNoFlag(t, a, "insecure-skip-default-identity-rules")
		a = args(t, render(t, map[string]any{"insecure": map[string]any{"allowUnreservedServiceAccounts": true, "skipDefaultIdentityRules": true}}).deployment(t))
		wantFlag(t, a, "insecure-allow-unreserved-service-accounts", "")
		wantFlag(t, a, "insecure-skip-default-identity-rules", "")
	})
	t.Run("image digest", func(t *testing.T) {
		digest := "sha256:" + strings.Repeat("ab", 32)
		d := render(t, map[string]any{"image": map[string]any{"digest": digest}}).deployment(t)
		if got := d.Spec.Template.Spec.Containers[0].Image; got != "ghcr.io/aztenant/aztenant-operator@"+digest {
			t.Errorf("image %q", got)
		}
	})
	t.Run("served all, metrics off, no leader election", func(t *testing.T) {
		m := render(t, map[string]any{
			"operator": map[string]any{"servedNamespaces": "all"}, "metrics": map[string]any{"enabled": false},
			"leaderElection": map[string]any{"enabled": false},
		})
		d := m.deployment(t)
		a := args(t, d)
		wantFlag(t, a, "served-namespaces", "all")
		wantFlag(t, a, "metrics-bind-address", "0")
		wantNoFlag(t, a, "leader-elect")
		wantNoFlag(t, a, "leader-election-namespace")
		for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
			if p.Name == "metrics" {
				t.Error("metrics port rendered with metrics off")
			}
		}
		for _, kind := range []string{"Service", "Role", "RoleBinding", "ServiceMonitor"} {
			if n := len(m.ofKind(kind)); n != 0 {
				t.Errorf("%d %s rendered", n, kind)
			}
		}
	})
	t.Run("existing ServiceAccount, no RBAC", func(t *testing.T) {
		m := render(t, map[string]any{"serviceAccount": map[string]any{"create": false, "name": "operator"}, "rbac": map[string]any{"create": false}})
		for _, kind := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"} {
			if n := len(m.ofKind(kind)); n != 0 {
				t.Errorf("%d %s rendered", n, kind)
			}
		}
		if got := m.deployment(t).Spec.Template.Spec.ServiceAccountName; got != "operator" {
			t.Errorf("serviceAccountName %q", got)
		}
	})
}

// The schema and the templates refuse bad values with an error naming them.
func TestValuesRefused(t *testing.T) {
	const schemaErr = "values don't meet the specifications of the schema"
	for _, tc := range []struct {
		name   string
		values map[string]any
		want   []string
	}{
		{"unknown cloud", map[string]any{"azure": map[string]any{"cloud": "AzureGermanCloud"}},
			[]string{schemaErr, "/azure/cloud", "AzurePublicCloud"}},
		{"unknown reconcile policy", map[string]any{"operator": map[string]any{"defaultReconcilePolicy": "delete"}},
			[]string{schemaErr, "/operator/defaultReconcilePolicy", "detach-on-delete"}},
		{"unknown top-level key", map[string]any{"replicas": 2}, []string{schemaErr, "replicas"}},
		{"misspelt nested key", map[string]any{"operator": map[string]any{"wrokers": 2}}, []string{schemaErr, "/operator", "wrokers"}},
		{"no workers", map[string]any{"operator": map[string]any{"workers": 0}}, []string{schemaErr, "/operator/workers"}},
		{"bad duration", map[string]any{"operator": map[string]any{"syncPeriod": "1 hour"}}, []string{schemaErr, "/operator/syncPeriod"}},
		{"bad secret refresh period", map[string]any{"operator": map[string]any{"secretRefreshPeriod": "1d"}}, []string{schemaErr, "/operator/secretRefreshPeriod"}},
		{"bad namespace name", map[string]any{"operator": map[string]any{"servedNamespaces": []string{"Team_A"}}}, []string{schemaErr, "/operator/servedNamespaces"}},
		{"plain-HTTP authority", map[string]any{"azure": map[string]any{"authorityHost": "http://login.example"}}, []string{schemaErr, "/azure/authorityHost"}},
		{"platform identity without client ID", map[string]any{"platformIdentity": map[string]any{"enabled": true}}, []string{schemaErr, "/platformIdentity"}},
		{"platform identity without subscription", map[string]any{"platformIdentity": map[string]any{"enabled": true, "clientID": "11111111-2222-3333-4444-555555555555", "tenantID": "72f988bf-86f1-41af-91ab-2d7cd011db47"}}, []string{schemaErr, "subscriptionID"}},
		{"plain-http issuer", map[string]any{"platformIdentity": map[string]any{"oidcIssuerURL": "http://issuer"}}, []string{schemaErr, "/platformIdentity/oidcIssuerURL"}},
		{"client ID not a GUID", map[string]any{"platformIdentity": map[string]any{"enabled": true, "clientID": "my-app"}}, []string{schemaErr, "/platformIdentity/clientID"}},
		{"bad pull policy", map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, []string{schemaErr, "/image/pullPolicy"}},
		{"pattern of the wrong type", map[string]any{"crds": map[string]any{"pattern": 3}}, []string{schemaErr, "/crds/pattern"}},
		{"weakened securityContext", map[string]any{"podSecurityContext": map[string]any{"runAsNonRoot": false}}, []string{schemaErr, "runAsNonRoot"}},
		{"CA bundle from both sources", map[string]any{"azure": map[string]any{"caBundle": map[string]any{
			"configMap": map[string]any{"name": "a"}, "secret": map[string]any{"name": "b"}}}},
			[]string{"azure.caBundle: set configMap.name or secret.name, not both"}},
		{"replicas without leader election", map[string]any{"replicaCount": 2, "leaderElection": map[string]any{"enabled": false}},
			[]string{"replicaCount > 1 needs leaderElection.enabled"}},
		{"ServiceMonitor without Service", map[string]any{"metrics": map[string]any{"service": map[string]any{"enabled": false}, "serviceMonitor": map[string]any{"enabled": true}}},
			[]string{"metrics.serviceMonitor.enabled needs metrics.enabled and metrics.service.enabled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := templateErr(t, tc.values)
			if err == nil {
				t.Fatalf("helm template accepted %v", tc.values)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("helm's error does not mention %q:\n%s", w, out)
				}
			}
		})
	}
}

// The users' roles name every namespaced kind the chart installs, so a new
// kind cannot be forgotten, and only those: they follow crds.pattern. Edit
// never includes Identities or any status.
func TestTemplateUserRoles(t *testing.T) {
	all, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range all {
		byName[c.Name] = c
	}
	for _, pattern := range []any{"*", "resources.aztenant.io/*;network.aztenant.io/VirtualNetwork*;Redis.cache.aztenant.io", []string{"storage.aztenant.io"}, ""} {
		t.Run(fmt.Sprint(pattern), func(t *testing.T) {
			m := render(t, map[string]any{"crds": map[string]any{"pattern": pattern}})
			edit, view := m.clusterRoleNamed(t, fullname+"-edit"), m.clusterRoleNamed(t, fullname+"-view")
			if edit.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" || view.Labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" {
				t.Errorf("user roles not aggregated: edit %v, view %v", edit.Labels, view.Labels)
			}
			granted := func(r *rbacv1.ClusterRole) map[string]bool {
				out := map[string]bool{}
				for _, rule := range r.Rules {
					for _, g := range rule.APIGroups {
						for _, res := range rule.Resources {
							if res == "*" || strings.Contains(res, "/") {
								t.Errorf("%s grants %q in %s: status and other subresources are the operator's", r.Name, res, g)
							}
							out[res+"."+g] = true
						}
					}
				}
				return out
			}
			edits, views := granted(edit), granted(view)
			installed := map[string]bool{}
			for _, name := range crdUpdateNames(t, m) {
				crd := byName[name]
				if crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
					continue
				}
				installed[name] = true
				if !views[name] {
					t.Errorf("%s-view does not let users read %s", fullname, name)
				}
				if wantEdit := crd.Spec.Group != "identity.aztenant.io"; edits[name] != wantEdit {
					t.Errorf("%s-edit grants %s: %t, want %t", fullname, name, edits[name], wantEdit)
				}
			}
			for _, g := range []map[string]bool{edits, views} {
				for name := range g {
					if !installed[name] {
						t.Errorf("the user roles grant %s, whose CRD crds.pattern %q leaves out", name, pattern)
					}
				}
			}
		})
	}
	t.Run("a kind and its group", func(t *testing.T) {
		m := render(t, map[string]any{"crds": map[string]any{"pattern": "storage.aztenant.io/StorageAccount"}})
		edit := m.clusterRoleNamed(t, fullname+"-edit")
		// Plans (aztenant plan) are always granted: their CRD is always installed.
		if len(edit.Rules) != 2 || !slices.Equal(edit.Rules[0].Resources, []string{"storageaccounts"}) || !slices.Equal(edit.Rules[0].APIGroups, []string{"storage.aztenant.io"}) ||
			!slices.Equal(edit.Rules[1].APIGroups, []string{"plan.aztenant.io"}) {
			t.Errorf("edit rules %+v, want storageaccounts.storage.aztenant.io and plans alone", edit.Rules)
		}
	})
	if none := render(t, map[string]any{"rbac": map[string]any{"aggregateToDefaultRoles": false}}); len(none.ofKind("ClusterRole")) != 1 {
		t.Errorf("aggregateToDefaultRoles=false still renders %d ClusterRoles", len(none.ofKind("ClusterRole")))
	}
}

// The chart's reservation of the provisioner accounts is the one the demo and
// the tests install (identity/reservation), for the chart's own
// ServiceAccount: the same policies, bindings and parameter.
func TestTemplateReservation(t *testing.T) {
	m := render(t, nil)
	want, err := reservation.Objects(namespace, []string{"system:serviceaccount:" + namespace + ":" + fullname})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		kind := reflect.TypeOf(w).Elem().Name()
		got := m.ofKind(kind).named(w.GetName())
		if len(got) != 1 {
			t.Errorf("the chart renders %d %s %s, want 1", len(got), kind, w.GetName())
			continue
		}
		g := reflect.New(reflect.TypeOf(w).Elem()).Interface().(client.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(got[0].Object, g, true); err != nil {
			t.Fatalf("%s %s: %v", kind, w.GetName(), err)
		}
		if g.GetNamespace() != w.GetNamespace() {
			t.Errorf("%s %s in namespace %q, want %q", kind, w.GetName(), g.GetNamespace(), w.GetNamespace())
		}
		gv, wv := reflect.ValueOf(g).Elem(), reflect.ValueOf(w).Elem()
		for _, field := range []string{"Spec", "Data"} {
			if f := wv.FieldByName(field); f.IsValid() && !equality.Semantic.DeepEqual(gv.FieldByName(field).Interface(), f.Interface()) {
				t.Errorf("%s %s: the chart's %s differs from identity/reservation's:\n got %+v\nwant %+v", kind, w.GetName(), field, gv.FieldByName(field).Interface(), f.Interface())
			}
		}
	}
}
