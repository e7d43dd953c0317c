package reconcilers

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// This file reads the annotations of Azure Service Operator v2 that manifests
// written for it carry (serviceoperator.azure.com/*): the reconcile policy is
// honoured, since silently ignoring "skip" would create what the user meant to
// leave alone; every other one is ignored with a warning event.

const (
	asoPrefix = "serviceoperator.azure.com/"
	// AnnotationASOReconcilePolicy is ASO's reconcile policy, honoured when the
	// object has no aztenant.io/reconcile-policy.
	AnnotationASOReconcilePolicy = asoPrefix + "reconcile-policy"
	// EventIgnoredAnnotation: a serviceoperator.azure.com annotation aztenant
	// does not act on.
	EventIgnoredAnnotation = "IgnoredAnnotation"
)

// asoPolicy maps ASO's values: its skip still reads the resource and reports a
// missing one, which is aztenant's observe (its skip reads nothing).
func asoPolicy(v string) (Policy, error) {
	switch v {
	case "manage":
		return PolicyManage, nil
	case "skip":
		return PolicyObserve, nil
	case "detach-on-delete":
		return PolicyDetachOnDelete, nil
	}
	// ASO treats an unknown value as manage; writing on a guess is not safe.
	return "", &invalidPolicyError{fmt.Errorf("the object's %s annotation %q: want manage, skip (aztenant observes: reads, never writes) or detach-on-delete, or use %s", AnnotationASOReconcilePolicy, v, AnnotationReconcilePolicy)}
}

// asoIgnored says, for each serviceoperator.azure.com annotation obj carries
// that aztenant does not act on, why, sorted by annotation.
func asoIgnored(obj azurev1alpha1.Resource) []string {
	var out []string
	for k, v := range obj.GetAnnotations() {
		if !strings.HasPrefix(k, asoPrefix) {
			continue
		}
		switch k {
		case AnnotationASOReconcilePolicy:
			if own, ok := obj.GetAnnotations()[AnnotationReconcilePolicy]; ok && own != v {
				out = append(out, fmt.Sprintf("%s=%q is ignored: %s=%q takes precedence", k, v, AnnotationReconcilePolicy, own))
			}
		case asoPrefix + "credential-from":
			out = append(out, fmt.Sprintf("%s=%q is ignored: aztenant never reads credentials from Secrets; the resource acts as its namespace's Identity (annotation aztenant.io/identity names another of the namespace)", k, v))
		case asoPrefix + "resource-id", asoPrefix + "poller-resume-token", asoPrefix + "operator-namespace", asoPrefix + "latest-reconciled-generation":
			out = append(out, fmt.Sprintf("%s is ignored: Azure Service Operator writes it for its own use (aztenant keeps its state in status)", k))
		default:
			out = append(out, fmt.Sprintf("%s is ignored: aztenant has no equivalent", k))
		}
	}
	sort.Strings(out)
	return out
}

// warnASO raises a warning event for each ignored ASO annotation, once per
// object and value for the life of the process (a resync does not repeat it).
func (r *Reconciler) warnASO(obj azurev1alpha1.Resource) {
	for _, msg := range asoIgnored(obj) {
		if _, seen := r.asoWarned.LoadOrStore(string(obj.GetUID())+"\x00"+msg, struct{}{}); !seen {
			r.event(obj, corev1.EventTypeWarning, EventIgnoredAnnotation, msg)
		}
	}
}
