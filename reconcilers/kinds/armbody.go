package kinds

import (
	"strconv"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// Helpers shared by the adapters to build ARM bodies that carry only what the
// user set, so ARM's defaults are never fought.

// putTags is the tags object: always present for kinds with tags, so tags
// removed outside aztenant count as drift.
func putTags(tags map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range tags {
		out[k] = v
	}
	return out
}

// strOf reads a string property.
func strOf(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// itoa formats an optional number for a Secret, "" when unset.
func itoa(v *int32) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(int(*v))
}

// armLocation is a spec's location as ARM names it: the API server admits
// display names too ("West Europe"), which ARM answers as "westeurope".
func armLocation(l azurev1alpha1.Location) string {
	return azurev1alpha1.NormalizeLocation(string(l))
}
