package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/armclient"
	"github.com/aztenant/aztenant/reconcilers/expressions"
)

// export writes the kind's outputs, and the results of the user's CEL
// expressions, to the Secrets and ConfigMaps named in spec.operatorSpec. It
// returns an outcome when an export failed (the resource itself is fine). Nothing
// is written unless every value could be computed.
//
// The secret outputs are read from Azure (a POST) only when they are due
// (secretsread.go); otherwise their Secrets are left as the last read wrote
// them, and only the ConfigMaps are written. keep is then how long until the
// read is due by the secret refresh period (0 when nothing is read).
func (r *Reconciler) export(ctx context.Context, obj azurev1alpha1.Resource, calls armclient.Calls, id string) (keep time.Duration, _ *Outcome) {
	hooks := r.Kind.Hooks()
	configMaps := map[string]map[string]string{}
	if hooks.ConfigMapValues != nil {
		values := hooks.ConfigMapValues(obj)
		for out, d := range hooks.ConfigMapDestinations(obj) {
			if d != nil {
				put(configMaps, d.Name, d.Key, values[out])
			}
		}
	}
	exprs := obj.Expressions()
	secrets := map[string]map[string]string{}
	var secretValues map[string]string
	var read *azurev1alpha1.SecretsRead // recorded once the Secrets are written
	if hooks.Secrets != nil {
		dests := hooks.SecretDestinations(obj)
		var secretExprs []azurev1alpha1.DestinationExpression
		if exprs != nil {
			secretExprs = exprs.SecretExpressions
		}
		if hasAny(dests) || len(secretExprs) > 0 {
			period, err := r.secretRefreshPeriod(obj)
			if err != nil {
				return 0, newOutcome(ReasonInvalidSpec, err.Error())
			}
			hash := exportsHash(dests, secretExprs)
			why, left, err := r.secretsDue(ctx, obj, hash, secretNames(dests, secretExprs), period)
			if err != nil {
				return 0, newOutcome(ReasonExportFailed, "checking the exported Secrets: "+err.Error())
			}
			if why == "" {
				// Without the secret outputs no Secret can be computed: the
				// ConfigMaps alone are written.
				if exprs != nil {
					exprs = &azurev1alpha1.OperatorExpressions{ConfigMapExpressions: exprs.ConfigMapExpressions}
				}
				dests, keep = nil, left
			} else {
				r.decide(ctx, obj, DecisionReadSecrets, "why", why)
				secretValues, err = hooks.Secrets(ctx, func(ctx context.Context, action string) (map[string]any, error) {
					return calls.Action(ctx, id, action)
				}, obj)
				if err != nil {
					return 0, newOutcome(ReasonExportFailed, "reading secrets from Azure: "+err.Error())
				}
				read = &azurev1alpha1.SecretsRead{Time: metav1.Now(), Generation: obj.GetGeneration(), ExportsHash: hash,
					Refresh: obj.GetAnnotations()[AnnotationRefreshSecrets]}
				keep = period
			}
		} else {
			obj.AzureStatus().SecretsRead = nil // nothing exported: re-adding exports reads
		}
		for out, d := range dests {
			if d != nil {
				put(secrets, d.Name, d.Key, secretValues[out])
			}
		}
	}
	if exprs != nil && (len(exprs.SecretExpressions) > 0 || len(exprs.ConfigMapExpressions) > 0) {
		if o := r.evaluate(ctx, obj, exprs, secretValues, secrets, configMaps); o != nil {
			return 0, o
		}
	}
	if o := r.writeAll(ctx, obj, configMaps, false); o != nil {
		return 0, o
	}
	if o := r.writeAll(ctx, obj, secrets, true); o != nil {
		return 0, o
	}
	if read != nil {
		obj.AzureStatus().SecretsRead = read
	}
	return keep, nil
}

// evaluate runs the CEL exports and merges their results into the fixed
// exports, refusing an expression that writes a key a fixed export writes.
func (r *Reconciler) evaluate(ctx context.Context, obj azurev1alpha1.Resource, exprs *azurev1alpha1.OperatorExpressions, secretValues map[string]string, secrets, configMaps map[string]map[string]string) *Outcome {
	if r.Expressions == nil {
		return newOutcome(ReasonExportFailed, "this operator has no expression evaluator configured")
	}
	self, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return newOutcome(ReasonExportFailed, err.Error())
	}
	// One deadline for all of them, so many expressions cannot add up.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	es, ecm, err := expressions.Apply(ctx, r.Expressions, exprs, self, secretValues)
	if err != nil {
		// Compile and runtime errors alike: the expression must change.
		return newOutcome(ReasonExpressionFailed, err.Error())
	}
	for _, m := range []struct {
		into, from map[string]map[string]string
		kind       string
	}{{secrets, es, "Secret"}, {configMaps, ecm, "ConfigMap"}} {
		for name, kv := range m.from {
			for k, v := range kv {
				if _, taken := m.into[name][k]; taken {
					return newOutcome(ReasonExpressionFailed, fmt.Sprintf("an expression writes key %q of %s %q, which operatorSpec already exports", k, m.kind, name))
				}
				put(m.into, name, k, v)
			}
		}
	}
	return nil
}

func put(m map[string]map[string]string, name, key, value string) {
	if m[name] == nil {
		m[name] = map[string]string{}
	}
	m[name][key] = value
}

func hasAny(m map[string]*azurev1alpha1.SecretDestination) bool {
	for _, d := range m {
		if d != nil {
			return true
		}
	}
	return false
}

func (r *Reconciler) writeAll(ctx context.Context, obj azurev1alpha1.Resource, byName map[string]map[string]string, secret bool) *Outcome {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := r.writeOne(ctx, obj, n, byName[n], secret); err != nil {
			reason := ReasonExportFailed
			var invalid *invalidNameError
			switch {
			case errors.As(err, new(*conflictError)):
				reason = ReasonExportConflict
			case errors.As(err, &invalid) || apierrors.IsInvalid(err):
				// The API server will never take it: the spec must change.
				reason = ReasonInvalidSpec
			}
			return newOutcome(reason, err.Error())
		}
	}
	return nil
}

// exportRetry: a failed export is tried again at its reason's wait, and no
// later than the sync period (an expression that failed on Azure's answer is
// evaluated again at every sync).
func exportRetry(o *Outcome, period time.Duration) *Outcome {
	if o.RequeueAfter == 0 || o.RequeueAfter > period {
		return o.after(jitter(period))
	}
	return o
}

type invalidNameError struct {
	kind, name string
	problems   []string
}

func (e *invalidNameError) Error() string {
	return fmt.Sprintf("%s name %q is not a valid name in this namespace (%s): choose another in spec.operatorSpec", e.kind, e.name, strings.Join(e.problems, "; "))
}

type conflictError struct{ kind, name string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %q exists and is not owned by this resource: it was not overwritten; delete it or choose another name", e.kind, e.name)
}

// writeOne creates or updates one Secret or ConfigMap owned by obj, writing
// only when its data differs. An object it does not own is never touched.
func (r *Reconciler) writeOne(ctx context.Context, obj azurev1alpha1.Resource, name string, data map[string]string, secret bool) error {
	var target client.Object
	kind := "ConfigMap"
	if secret {
		target, kind = &corev1.Secret{}, "Secret"
	} else {
		target = &corev1.ConfigMap{}
	}
	if problems := validation.IsDNS1123Subdomain(name); len(problems) > 0 {
		// Such as "other-namespace/name": never sent to the API server.
		return &invalidNameError{kind: kind, name: name, problems: problems}
	}
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}
	err := r.Client.Get(ctx, key, target)
	switch {
	case apierrors.IsNotFound(err):
		target.SetNamespace(key.Namespace)
		target.SetName(key.Name)
		setData(target, data)
		if s, ok := target.(*corev1.Secret); ok {
			markExported(s, data)
		}
		if err := controllerutil.SetControllerReference(obj, target, r.Client.Scheme()); err != nil {
			return err
		}
		return r.Client.Create(ctx, target)
	case err != nil:
		return err
	}
	if !metav1.IsControlledBy(target, obj) {
		return &conflictError{kind: kind, name: name}
	}
	changed := setData(target, data)
	if s, ok := target.(*corev1.Secret); ok && markExported(s, data) {
		changed = true
	}
	if !changed {
		return nil
	}
	return r.Client.Update(ctx, target)
}

// setData merges data into the object, reporting whether anything changed.
func setData(o client.Object, data map[string]string) bool {
	switch t := o.(type) {
	case *corev1.Secret:
		if t.Data == nil {
			t.Data = map[string][]byte{}
		}
		changed := false
		for k, v := range data {
			if string(t.Data[k]) != v {
				t.Data[k] = []byte(v)
				changed = true
			}
		}
		return changed
	case *corev1.ConfigMap:
		if t.Data == nil {
			t.Data = map[string]string{}
		}
		before := maps.Clone(t.Data)
		maps.Copy(t.Data, data)
		return !maps.Equal(before, t.Data)
	}
	return false
}
