package gatekeeper

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aztenant/aztenant/api"
	"github.com/aztenant/aztenant/internal/lab/controlplane"
	"github.com/aztenant/aztenant/internal/testing/testenv"
	"github.com/aztenant/aztenant/policy"
)

// enforceWithin bounds every wait for a policy to take effect.
const enforceWithin = 45 * time.Second

// A tenant's manifests, checked at admission against the library's sample
// constraints.
const (
	ownerAtSubscription = `apiVersion: authorization.aztenant.io/v1alpha1
kind: RoleAssignment
metadata:
  name: owner-of-subscription
  namespace: team-a
spec:
  owner:
    armId: /subscriptions/00000000-0000-0000-0000-000000000001
  roleDefinitionReference:
    wellKnownName: Owner
  principalId: 11111111-2222-3333-4444-555555555555
`
	blobReaderOnGroup = `apiVersion: authorization.aztenant.io/v1alpha1
kind: RoleAssignment
metadata:
  name: blob-reader
  namespace: team-a
spec:
  owner:
    name: team-a-rg
  roleDefinitionReference:
    wellKnownName: Storage Blob Data Reader
  principalId: 11111111-2222-3333-4444-555555555555
`
	ficOtherNamespace = `apiVersion: managedidentity.aztenant.io/v1alpha1
kind: FederatedIdentityCredential
metadata:
  name: borrow-team-b
  namespace: team-a
spec:
  owner:
    name: team-a-identity
  issuer: https://oidc.cluster.example.com/
  subject: system:serviceaccount:team-b:workload
`
	groupOfTeamB = `apiVersion: resources.aztenant.io/v1alpha1
kind: ResourceGroup
metadata:
  name: team-b-data
  namespace: %s
spec:
  location: westeurope
`
)

// admissionCase is one manifest and what admission must answer.
type admissionCase struct {
	name     string
	manifest string
	// deny lists the violations, each as the end of a denial: "] " after
	// the constraint's name, then the template's message. Gatekeeper reports
	// every violated constraint; the API server stops at the first policy
	// that denies, so it shows one of them. Empty means allowed.
	deny []string
}

var cases = []admissionCase{
	{"Owner at subscription scope", ownerAtSubscription, []string{
		"] RoleAssignment owner-of-subscription grants privileged role Owner (8e3af657-a8ff-443c-a75c-2fe8c4bcb635)",
		"] RoleAssignment owner-of-subscription scope /subscriptions/00000000-0000-0000-0000-000000000001 is outside the allowed scopes",
		"] RoleAssignment owner-of-subscription owner.armId /subscriptions/00000000-0000-0000-0000-000000000001 is not under an allowed unmanaged owner",
	}},
	{"Owner of the team's resource group", strings.ReplaceAll(blobReaderOnGroup, "Storage Blob Data Reader", "Owner"), []string{
		"] RoleAssignment blob-reader grants privileged role Owner (8e3af657-a8ff-443c-a75c-2fe8c4bcb635)",
	}},
	{"FederatedIdentityCredential trusting another namespace", ficOtherNamespace, []string{
		"] FederatedIdentityCredential borrow-team-b subject system:serviceaccount:team-b:workload must be system:serviceaccount:team-a:<serviceaccount>",
	}},
	{"Storage Blob Data Reader on a named resource group", blobReaderOnGroup, nil},
	{"team-b's resource group in team-a", fmt.Sprintf(groupOfTeamB, "team-a"), []string{
		"] ResourceGroup team-b-data uses resource group team-b-data, which namespace team-a may not use",
		"] ResourceGroup team-b-data name team-b-data does not match the naming pattern ^team-a-[a-z0-9-]+$",
	}},
	// allowed-scopes matches namespace team-a only.
	{"team-b's resource group in team-b", fmt.Sprintf(groupOfTeamB, "team-b"), nil},
}

// kubectl runs bin/kubectl against env's API server.
func kubectl(t *testing.T, env *testenv.Env, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin, err := controlplane.FindBinDir("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig=" + env.KubeconfigPath}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// waitEnforced polls a server-side dry run (admission runs, nothing is
// stored) of every forbidden case until each is denied, and returns how
// long the first took.
func waitEnforced(t *testing.T, env *testenv.Env) time.Duration {
	t.Helper()
	start := time.Now()
	var first time.Duration
	for _, c := range cases {
		if len(c.deny) == 0 {
			continue
		}
		var stderr string
		testenv.Eventually(t, enforceWithin-time.Since(start), c.name+" denied", func() (bool, string) {
			var err error
			_, stderr, err = kubectl(t, env, c.manifest, "apply", "--dry-run=server", "-f", "-")
			return err != nil && containsAny(stderr, c.deny), "last answer:\n" + stderr
		})
		if first == 0 {
			first = time.Since(start)
		}
	}
	return first
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// checkAdmission applies each case with kubectl: a forbidden one must fail
// with the templates' messages (after denyPrefix, which says who denied
// it; all of them if reportsAll, else one) and leave nothing stored; an
// allowed one must be created.
func checkAdmission(t *testing.T, env *testenv.Env, denyPrefix string, reportsAll bool) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := policy.DecodeManifests(c.name, []byte(c.manifest))
			if err != nil {
				t.Fatal(err)
			}
			obj := objs[0]
			stdout, stderr, err := kubectl(t, env, c.manifest, "apply", "-f", "-")
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(obj.GroupVersionKind())
			getErr := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), got)
			if len(c.deny) == 0 {
				if err != nil {
					t.Fatalf("kubectl apply of an allowed object failed: %v\n%s", err, stderr)
				}
				if getErr != nil {
					t.Fatalf("kubectl said %q but the object is not there: %v", strings.TrimSpace(stdout), getErr)
				}
				return
			}
			if err == nil {
				t.Fatalf("kubectl apply of a forbidden object exited 0:\n%s", stdout)
			}
			t.Logf("kubectl apply: %s", strings.TrimSpace(stderr))
			if !strings.Contains(stderr, denyPrefix) {
				t.Errorf("kubectl's error does not say %q:\n%s", denyPrefix, stderr)
			}
			if !containsAny(stderr, c.deny) {
				t.Errorf("kubectl's error has none of the templates' messages %q:\n%s", c.deny, stderr)
			}
			for _, d := range c.deny {
				if reportsAll && !strings.Contains(stderr, d) {
					t.Errorf("kubectl's error lacks %q", d)
				}
			}
			if !apierrors.IsNotFound(getErr) {
				t.Errorf("the denied object was stored anyway (get: %v)", getErr)
			}
		})
	}
}

// The cases' verdicts are those of `aztenant policy test`'s engine with the
// same sample constraints, so both admission paths agree with it.
func TestCasesAgreeOffline(t *testing.T) {
	t.Parallel()
	constraints, err := policy.SampleConstraints()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		objs, err := policy.DecodeManifests(c.name, []byte(c.manifest))
		if err != nil {
			t.Fatal(err)
		}
		namespaces := []*corev1.Namespace{
			{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
			{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}},
		}
		vs, err := policy.Evaluate(t.Context(), append(objs, constraints...), namespaces)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, v := range vs {
			msgs = append(msgs, "["+strings.SplitN(v.Constraint, "/", 2)[1]+"] "+v.Message)
		}
		all := strings.Join(msgs, "\n")
		if len(c.deny) == 0 && len(vs) > 0 {
			t.Errorf("%s: admitted, but offline evaluation finds:\n%s", c.name, all)
		}
		for _, d := range c.deny {
			if !strings.Contains(all, d) {
				t.Errorf("%s: denied with %q, but offline evaluation finds:\n%s", c.name, d, all)
			}
		}
		if n := len(c.deny); n > 0 && len(vs) < n {
			t.Errorf("%s: offline evaluation finds %d violations, the case lists %d", c.name, len(vs), n)
		}
	}
}

func createNamespace(t *testing.T, env *testenv.Env, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(t.Context(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// checkLibraryExamples submits every example of the library as a
// server-side dry run and compares admission's verdict with offline
// evaluation under the same sample constraints: denied exactly when the
// offline engine finds a violation, with its messages (all of them if
// reportsAll, else one). An AdmissionReview example is sent as the request
// it describes (replayRequest). An example of a kind the project has no
// CRD for yet (a template written ahead of its kind, such as
// RoleDefinition) cannot reach admission and is only listed.
func checkLibraryExamples(t *testing.T, env *testenv.Env, reportsAll bool) {
	t.Helper()
	files, offline := libraryVerdicts(t)
	crds, err := api.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, crd := range crds {
		served[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = true
	}
	denied := 0
	var invalid, unserved []string
	for _, f := range files {
		obj, want := f.obj, offline[f.path]
		gk := obj.GroupVersionKind().Group + "/" + obj.GetKind()
		if f.request != nil {
			gk = f.request.Kind.Group + "/" + f.request.Kind.Kind
		}
		if strings.HasSuffix(strings.SplitN(gk, "/", 2)[0], ".aztenant.io") && !served[gk] {
			unserved = append(unserved, f.path)
			continue
		}
		var err error
		if f.request != nil {
			err = replayRequest(t, env, f.request)
		} else {
			if obj.GetNamespace() != "" {
				createNamespace(t, env, obj.GetNamespace())
			}
			err = env.Client.Create(t.Context(), obj.DeepCopy(), client.DryRunAll)
		}
		switch {
		case apierrors.IsInvalid(err):
			// The CRD's schema and rules refuse it before admission policies run.
			invalid = append(invalid, f.path)
		case len(want) == 0 && (err == nil || apierrors.IsAlreadyExists(err)):
		case len(want) == 0:
			t.Errorf("%s: offline allowed, admission answered: %v", f.path, err)
		case !apierrors.IsForbidden(err):
			t.Errorf("%s: offline denied (%q), admission answered: %v", f.path, want, err)
		case reportsAll:
			denied++
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: admission's denial lacks %q:\n%v", f.path, w, err)
				}
			}
		default:
			denied++
			if !containsAny(err.Error(), want) {
				t.Errorf("%s: admission denied with none of %q:\n%v", f.path, want, err)
			}
		}
	}
	t.Logf("%d library examples: %d denied and %d admitted as offline; %d refused by the CRDs first: %s; %d of kinds without a CRD yet: %s",
		len(files), denied, len(files)-denied-len(invalid)-len(unserved), len(invalid), strings.Join(invalid, ", "), len(unserved), strings.Join(unserved, ", "))
}

type example struct {
	path string
	obj  *unstructured.Unstructured
	// request is an AdmissionReview example's request (obj is the review).
	request *admissionv1.AdmissionRequest
}

var (
	verdictsOnce sync.Once
	examples     []example
	verdicts     map[string][]string
	verdictsErr  error
)

// libraryVerdicts are the library's examples and, per example path, the
// violations offline evaluation finds ("[constraint] message"), computed
// once for the package: each evaluation compiles the whole library.
func libraryVerdicts(t *testing.T) ([]example, map[string][]string) {
	t.Helper()
	verdictsOnce.Do(func() { examples, verdicts, verdictsErr = evaluateExamples(context.Background()) })
	if verdictsErr != nil {
		t.Fatal(verdictsErr)
	}
	return examples, verdicts
}

func evaluateExamples(ctx context.Context) ([]example, map[string][]string, error) {
	lib := policy.Library()
	files, err := fs.Glob(lib, "*/samples/*/example_*.yaml")
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("no library examples: %v", err)
	}
	constraints, err := policy.SampleConstraints()
	if err != nil {
		return nil, nil, err
	}
	var all []example
	namespaces := map[string]*corev1.Namespace{}
	for _, f := range files {
		data, err := fs.ReadFile(lib, f)
		if err != nil {
			return nil, nil, err
		}
		objs, err := policy.DecodeManifests(f, data)
		if err != nil {
			return nil, nil, err
		}
		e := example{path: f, obj: objs[0]}
		ns := e.obj.GetNamespace()
		if e.obj.GetKind() == "AdmissionReview" {
			if e.request, err = admissionRequest(e.obj); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", f, err)
			}
			ns = e.request.Namespace
		}
		all = append(all, e)
		if ns != "" {
			namespaces[ns] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		}
	}
	var nsList []*corev1.Namespace
	for _, ns := range namespaces {
		nsList = append(nsList, ns)
	}
	// Violations name the object, not the file: evaluate in rounds in which
	// no two examples share a kind, namespace and name.
	out := map[string][]string{}
	pending := all
	for len(pending) > 0 {
		var round, later []example
		byObject := map[string]string{}
		for _, e := range pending {
			key := policy.ObjectName(e.obj) // as policy.Violation.Object
			if _, dup := byObject[key]; dup {
				later = append(later, e)
				continue
			}
			byObject[key] = e.path
			round = append(round, e)
		}
		objs := append([]*unstructured.Unstructured(nil), constraints...)
		for _, e := range round {
			objs = append(objs, e.obj)
		}
		vs, err := policy.Evaluate(ctx, objs, nsList)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range vs {
			path := byObject[v.Object]
			out[path] = append(out[path], "["+strings.SplitN(v.Constraint, "/", 2)[1]+"] "+v.Message)
		}
		pending = later
	}
	return all, out, nil
}
