package exports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Reading a kind's secret outputs is an ARM action (listKeys and the like), a
// POST that ARM counts against the subscription's write budget. It is made
// only when the record of the last read (status.secretsRead) no longer
// holds; otherwise the Secrets written then are left as they are.

// Annotations users set to have the secret outputs read again.
const (
	// AnnotationRefreshSecrets: any value other than the one last honoured
	// (status.secretsRead.refresh) reads the secret outputs again, such as
	// after keys were rotated in Azure.
	AnnotationRefreshSecrets = "aztenant.io/refresh-secrets"
	// AnnotationSecretRefreshPeriod overrides the operator's secret refresh
	// period for the object.
	AnnotationSecretRefreshPeriod = "aztenant.io/secret-refresh-period"
)

// Annotations the operator writes on the Secrets it exports to: the keys it
// wrote and a digest of their values, so that a key changed or removed by
// someone is noticed without reading Azure. The digest is only on the
// Secret, visible to those who may read its values anyway.
const (
	AnnotationExportedKeys   = "aztenant.io/exported-keys"
	AnnotationExportedDigest = "aztenant.io/exported-digest"
)

// RefreshPeriod is the per-object annotation or the operator's period
// (operatorPeriod, 24h when 0).
func RefreshPeriod(obj azurev1alpha1.Resource, operatorPeriod time.Duration) (time.Duration, error) {
	if v, ok := obj.GetAnnotations()[AnnotationSecretRefreshPeriod]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return 0, fmt.Errorf("annotation %s=%q: want a duration of at least 1s, such as 24h", AnnotationSecretRefreshPeriod, v)
		}
		return d, nil
	}
	if operatorPeriod == 0 {
		return 24 * time.Hour, nil
	}
	return operatorPeriod, nil
}

// Hash digests what the spec exports to Secrets (destinations and secret
// expressions; no value), recorded in status.secretsRead.exportsHash.
func Hash(dests map[string]*azurev1alpha1.SecretDestination, exprs []azurev1alpha1.DestinationExpression) string {
	b, _ := json.Marshal(struct { // maps marshal with sorted keys
		D map[string]*azurev1alpha1.SecretDestination
		E []azurev1alpha1.DestinationExpression
	}{dests, exprs})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// valuesDigest digests the values of keys in data (a key absent is not an
// empty value).
func valuesDigest(keys []string, data func(string) ([]byte, bool)) string {
	h := sha256.New()
	for _, k := range keys {
		v, ok := data(k)
		fmt.Fprintf(h, "%d:%s:%t:%d:", len(k), k, ok, len(v))
		h.Write(v)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// markExported records on a Secret the keys written and their digest,
// reporting whether they changed.
func markExported(s *corev1.Secret, data map[string]string) bool {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	digest := valuesDigest(keys, func(k string) ([]byte, bool) { return []byte(data[k]), true })
	a := s.GetAnnotations()
	joined := strings.Join(keys, ",")
	if a[AnnotationExportedKeys] == joined && a[AnnotationExportedDigest] == digest {
		return false
	}
	if a == nil {
		a = map[string]string{}
	}
	a[AnnotationExportedKeys], a[AnnotationExportedDigest] = joined, digest
	s.SetAnnotations(a)
	return true
}

// intact reports whether a Secret still has the keys and values last
// exported to it.
func intact(s *corev1.Secret) bool {
	a := s.GetAnnotations()
	digest, ok := a[AnnotationExportedDigest]
	if !ok {
		return false
	}
	var keys []string
	if v := a[AnnotationExportedKeys]; v != "" {
		keys = strings.Split(v, ",")
	}
	return digest == valuesDigest(keys, func(k string) ([]byte, bool) { v, ok := s.Data[k]; return v, ok })
}

// Due says why the secret outputs must be read from Azure now ("" when they
// need not), and, when not, how long until the refresh period makes them
// due. hash is Hash of the spec's exports, names its Secrets (SecretNames),
// read with c.
func Due(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource, hash string, names []string, period time.Duration) (string, time.Duration, error) {
	last := obj.AzureStatus().SecretsRead
	age := time.Duration(0)
	if last != nil {
		age = time.Since(last.Time.Time)
	}
	switch {
	case last == nil:
		return "never read", 0, nil
	case last.ExportsHash != hash:
		return "the exports changed", 0, nil
	case last.Generation != obj.GetGeneration():
		// Secret expressions may use the spec.
		return "the spec changed", 0, nil
	case last.Refresh != obj.GetAnnotations()[AnnotationRefreshSecrets]:
		return AnnotationRefreshSecrets + " changed", 0, nil
	case age >= period:
		return "the secret refresh period passed", 0, nil
	}
	for _, n := range names {
		var s corev1.Secret
		err := c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: n}, &s)
		switch {
		case apierrors.IsNotFound(err):
			return "Secret " + n + " is missing", 0, nil
		case err != nil:
			return "", 0, err
		case !metav1.IsControlledBy(&s, obj):
			// Written again (or refused as a conflict) as on the first read.
			return "Secret " + n + " is not owned by this object", 0, nil
		case !intact(&s):
			return "Secret " + n + " has exported keys changed or removed", 0, nil
		}
	}
	return "", period - age, nil
}

// SecretNames are the Secrets the spec exports to, sorted.
func SecretNames(dests map[string]*azurev1alpha1.SecretDestination, exprs []azurev1alpha1.DestinationExpression) []string {
	var names []string
	for _, d := range dests {
		if d != nil {
			names = append(names, d.Name)
		}
	}
	for _, e := range exprs {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
