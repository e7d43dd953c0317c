package ownermarker

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// TagOwner marks the aztenant object that created or adopted a resource
	// (see Owner). Another object cannot adopt the resource while its owner
	// exists and has not released it. Azure tag names cannot hold '/' (as
	// the Azure disk CSI driver's kubernetes.io-created-for-pvc-name), hence
	// the '-'.
	TagOwner = "aztenant.io-owner"
	// TagCreatedFor, set by onboarding on a resource group it created with
	// the platform identity for a developer's ResourceGroup object, holds
	// that object's owner marker: the object takes the group as created by
	// itself (not adopted, so deleting the object deletes it) and removes
	// the tag, which is good for that first time only.
	TagCreatedFor = "aztenant.io-created-for"
)

// Owner is the value of TagOwner for the object (namespace, group and kind,
// name) in the cluster clusterID: "<cluster>.<object>", two SHA-256 digests
// in hex (8 and 32 digits). It names nothing readable and holds no secret;
// the cluster part tells a marker of this cluster from another's.
func Owner(clusterID, namespace string, gk schema.GroupKind, name string) string {
	c := sha256.Sum256([]byte("aztenant.io/cluster\x00" + clusterID))
	o := sha256.Sum256([]byte(strings.Join([]string{"aztenant.io/owner", clusterID, namespace, gk.Kind + "." + gk.Group, name}, "\x00")))
	return hex.EncodeToString(c[:4]) + "." + hex.EncodeToString(o[:16])
}

// Tag returns the value of tag name in tags, whatever the casing of its name:
// Azure's tag names are case-insensitive, so AZTENANT.IO-OWNER is the owner
// marker as much as aztenant.io-owner is.
func Tag[V any](tags map[string]V, name string) (V, bool) {
	if v, ok := tags[name]; ok {
		return v, true
	}
	for k, v := range tags {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	var zero V
	return zero, false
}
