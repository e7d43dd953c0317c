package crdinstall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RBAC: the chart grants create, and update of the selected CRDs by name
// (charts/aztenant/templates/clusterrole.yaml), never delete.

const (
	// DigestAnnotation records the digest of the spec last applied, so an
	// unchanged CRD costs no write when the operator starts again.
	DigestAnnotation = "aztenant.io/crd-digest"
	// VersionAnnotation records the version of the operator that applied
	// it: an older operator (a replica not yet rolled) leaves it alone.
	VersionAnnotation = "aztenant.io/operator-version"
	// FieldManager owns the fields the operator applies.
	FieldManager = "aztenant-operator"
)

// outcome is what Install did with one CRD.
type outcome int

const (
	created outcome = iota + 1
	updated
	unchanged
	newerThere
)

// Installer applies CRDs.
type Installer struct {
	// Client writes CRDs; it must not be a cached client.
	Client client.Client
	// Version is this operator's version (BuildVersion when empty): semantic
	// versions and Go pseudo-versions compare, anything else never blocks.
	Version string
}

// Result says what Install did, by CRD name.
type Result struct {
	Created, Updated, Unchanged []string
	// Newer are left as a newer operator applied them.
	Newer []string
}

// BuildVersion is the main module's version from the binary's build
// information: a tag, or a pseudo-version with the commit's time (which
// orders builds of a branch), or "(devel)".
func BuildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// Digest is the hash of what the operator applies of crd: its spec,
// labels and annotations other than the two it records.
func Digest(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	b, err := json.Marshal(struct {
		Labels, Annotations map[string]string
		Spec                apiextensionsv1.CustomResourceDefinitionSpec
	}{crd.Labels, withoutRecorded(crd.Annotations), crd.Spec})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func withoutRecorded(a map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		if k != DigestAnnotation && k != VersionAnnotation {
			out[k] = v
		}
	}
	return out
}

// Install applies each of crds whose digest differs from the one recorded
// on the API server's copy, unless a newer operator recorded it. One list
// of the CRDs' metadata tells which.
func (in Installer) Install(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) (Result, error) {
	var res Result
	ours := in.Version
	if ours == "" {
		ours = BuildVersion()
	}
	existing := &metav1.PartialObjectMetadataList{}
	existing.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"))
	if err := in.Client.List(ctx, existing); err != nil {
		return res, fmt.Errorf("list CRDs: %w", err)
	}
	recorded := map[string]map[string]string{}
	for _, c := range existing.Items {
		recorded[c.Name] = c.Annotations
	}
	log := ctrl.LoggerFrom(ctx).WithName("crds")
	outcomes := make([]outcome, len(crds))
	// A few at a time: a first install writes hundreds, each costly for
	// the API server (schemas, OpenAPI), which has the say on the pace.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, crd := range crds {
		digest, err := Digest(crd)
		if err != nil {
			return res, fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
		ann, found := recorded[crd.Name]
		switch {
		case found && ann[DigestAnnotation] == digest:
			outcomes[i] = unchanged
			continue
		case found && newer(ann[VersionAnnotation], ours):
			log.Info("CRD left as a newer operator applied it", "crd", crd.Name, "its", ann[VersionAnnotation], "ours", ours)
			outcomes[i] = newerThere
			continue
		}
		g.Go(func() error {
			was, err := in.write(gctx, crd, digest, ours, found)
			outcomes[i] = was
			return err
		})
	}
	err := g.Wait()
	for i, o := range outcomes {
		switch o {
		case created:
			res.Created = append(res.Created, crds[i].Name)
		case updated:
			res.Updated = append(res.Updated, crds[i].Name)
		case unchanged:
			res.Unchanged = append(res.Unchanged, crds[i].Name)
		case newerThere:
			res.Newer = append(res.Newer, crds[i].Name)
		}
	}
	if err != nil {
		return res, err
	}
	log.Info("CRDs applied", "created", len(res.Created), "updated", len(res.Updated), "unchanged", len(res.Unchanged), "newer", len(res.Newer))
	return res, nil
}

// write creates crd, or updates the API server's copy to it (its spec, and
// its labels and annotations beside others'), and says which it did.
// Create and update, not server-side apply: merging the managed fields of a
// schema of thousands of fields costs the API server several times more,
// and nobody else owns these fields.
func (in Installer) write(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, digest, ours string, found bool) (outcome, error) {
	want := crd.DeepCopy()
	want.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	want.ResourceVersion = ""
	want.Annotations = withoutRecorded(want.Annotations)
	want.Annotations[DigestAnnotation] = digest
	if ours != "" {
		want.Annotations[VersionAnnotation] = ours
	}
	if !found {
		err := in.Client.Create(ctx, want.DeepCopy(), client.FieldOwner(FieldManager))
		if err == nil {
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) { // another replica, just now: update it
			return 0, fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &apiextensionsv1.CustomResourceDefinition{}
		if err := in.Client.Get(ctx, client.ObjectKey{Name: crd.Name}, cur); err != nil {
			return err
		}
		cur.Spec = want.Spec
		cur.Labels = merged(cur.Labels, want.Labels)
		cur.Annotations = merged(cur.Annotations, want.Annotations)
		return in.Client.Update(ctx, cur, client.FieldOwner(FieldManager))
	})
	if err != nil {
		return 0, fmt.Errorf("update CRD %s: %w", crd.Name, err)
	}
	return updated, nil
}

// merged is have with want's keys set.
func merged(have, want map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range have {
		out[k] = v
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}

// newer reports whether theirs is a version above ours; a version that
// does not parse (empty, "(devel)") is never newer and never older.
func newer(theirs, ours string) bool {
	t, err := version.ParseSemantic(theirs)
	if err != nil {
		return false
	}
	o, err := version.ParseSemantic(ours)
	if err != nil {
		return false
	}
	return o.LessThan(t)
}

// ErrNotEstablished is returned by WaitEstablished for CRDs the API server
// did not establish in time; it names them.
type ErrNotEstablished struct {
	Names []string
	// Err is the error of the last list of CRDs, if it failed.
	Err error
}

func (e *ErrNotEstablished) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d CRDs not established: %v (listing CRDs: %v)", len(e.Names), e.Names, e.Err)
	}
	return fmt.Sprintf("%d CRDs not established: %v", len(e.Names), e.Names)
}

func (e *ErrNotEstablished) Unwrap() error { return e.Err }

// WaitEstablished polls until every named CRD is Established, or returns
// *ErrNotEstablished after timeout. A CRD whose names conflict with
// another's is never established: the error names it.
func WaitEstablished(ctx context.Context, c client.Reader, names []string, timeout time.Duration) error {
	pending := slices.Clone(names)
	// One list a round, not a GET per CRD: a first install has hundreds.
	var lastErr error
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(pctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		list := &apiextensionsv1.CustomResourceDefinitionList{}
		if err := c.List(ctx, list); err != nil {
			lastErr = err // tried again; said if it lasts to the timeout
			return false, nil
		}
		lastErr = nil
		ok := map[string]bool{}
		for i := range list.Items {
			ok[list.Items[i].Name] = established(&list.Items[i])
		}
		var still []string
		for _, n := range pending {
			if !ok[n] {
				still = append(still, n)
			}
		}
		pending = still
		return len(pending) == 0, nil
	})
	if err != nil && len(pending) > 0 && ctx.Err() == nil && pctx.Err() != nil {
		return &ErrNotEstablished{Names: pending, Err: lastErr}
	}
	return err
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
