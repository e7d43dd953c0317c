package reconcilers

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers/armclient"
	"github.com/aztenant/aztenant/reconcilers/exports"
	"github.com/aztenant/aztenant/reconcilers/expressions"
)

// This file is the export step: which values go to which Secret and
// ConfigMap (the kind's hooks, the CEL expressions), the read of the secret
// outputs when package exports says it is due, and the outcome; package
// exports writes them.

// Annotations of the secret outputs' reads and of the Secrets exported to
// (package exports says what each means), named here too for the kinds and
// the users of this package.
const (
	AnnotationRefreshSecrets      = exports.AnnotationRefreshSecrets
	AnnotationSecretRefreshPeriod = exports.AnnotationSecretRefreshPeriod
	AnnotationExportedKeys        = exports.AnnotationExportedKeys
	AnnotationExportedDigest      = exports.AnnotationExportedDigest
)

// export writes the kind's outputs, and the results of the user's CEL
// expressions, to the Secrets and ConfigMaps named in spec.operatorSpec. It
// returns an outcome when an export failed (the resource itself is fine). Nothing
// is written unless every value could be computed.
//
// The secret outputs are read from Azure (a POST) only when they are due
// (package exports); otherwise their Secrets are left as the last read wrote
// them, and only the ConfigMaps are written. keep is then how long until the
// read is due by the secret refresh period (0 when nothing is read).
func (r *Reconciler) export(ctx context.Context, obj azurev1alpha1.Resource, calls armclient.Calls, id string) (keep time.Duration, _ *Outcome) {
	if r.namespaceLeaving(ctx, obj.GetNamespace(), false) {
		return 0, nil
	}
	hooks := r.Kind.Hooks()
	configMaps := map[string]map[string]string{}
	if hooks.ConfigMapValues != nil {
		values := hooks.ConfigMapValues(obj)
		for out, d := range hooks.ConfigMapDestinations(obj) {
			if d != nil {
				exports.Put(configMaps, d.Name, d.Key, values[out])
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
		if exports.HasAny(dests) || len(secretExprs) > 0 {
			period, err := exports.RefreshPeriod(obj, r.SecretRefreshPeriod)
			if err != nil {
				return 0, newOutcome(ReasonInvalidSpec, err.Error())
			}
			hash := exports.Hash(dests, secretExprs)
			why, left, err := exports.Due(ctx, r.Client, obj, hash, exports.SecretNames(dests, secretExprs), period)
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
			} else if r.namespaceLeaving(ctx, obj.GetNamespace(), true) {
				return 0, nil
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
				exports.Put(secrets, d.Name, d.Key, secretValues[out])
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

// namespaceLeaving reports whether the namespace is being deleted: then
// nothing is exported, since its Secrets and ConfigMaps go with it (the
// namespace controller deleting an exported Secret must not make the operator
// read the keys from Azure again to write it back). live asks the API server
// rather than the cache, for a read of secrets from Azure: the cache may see
// the Secret's deletion before the namespace's.
func (r *Reconciler) namespaceLeaving(ctx context.Context, name string, live bool) bool {
	var reader client.Reader = r.Client
	if live && r.APIReader != nil {
		reader = r.APIReader
	}
	var ns corev1.Namespace
	err := reader.Get(ctx, client.ObjectKey{Name: name}, &ns)
	return err == nil && (ns.Status.Phase == corev1.NamespaceTerminating || !ns.DeletionTimestamp.IsZero())
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
				exports.Put(m.into, name, k, v)
			}
		}
	}
	return nil
}

func (r *Reconciler) writeAll(ctx context.Context, obj azurev1alpha1.Resource, byName map[string]map[string]string, secret bool) *Outcome {
	if err := exports.WriteAll(ctx, r.Client, obj, byName, secret); err != nil {
		reason := ReasonExportFailed
		var invalid *exports.InvalidNameError
		switch {
		case errors.As(err, new(*exports.ConflictError)):
			reason = ReasonExportConflict
		case errors.As(err, &invalid) || apierrors.IsInvalid(err):
			// The API server will never take it: the spec must change.
			reason = ReasonInvalidSpec
		}
		return newOutcome(reason, err.Error())
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
