package kinds

import (
	"context"
	"fmt"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	cachev1alpha1 "github.com/aztenant/aztenant/api/cache/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// A cache's version and its secret outputs, which its model cannot say.
//
// Azure takes redisVersion as major[.minor] or latest and answers the exact version
// running, 6.0.20 for 6 (Redis - Create and Get, learn.microsoft.com/rest/api/redis/redis/create):
// the answer satisfies the spec when it extends it.
//
// The access keys are not in the cache's body: Redis - List Keys (POST .../listKeys,
// learn.microsoft.com/rest/api/redis/redis/list-keys) answers {primaryKey, secondaryKey}.
// The Secrets get them with the host name and ports the status reports (api/kinds.yaml,
// exports.secrets); secretExpressions read the same names.
var _ = overlay(cachev1alpha1.RedisGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) {
		h.Equivalent = redisVersionEquivalent
		h.Secrets = redisSecrets
	},
})

// redisVersionEquivalent accepts the patch version Azure reports for the requested major
// (or major.minor) version: "6" is satisfied by "6.0.20".
func redisVersionEquivalent(path, desired, observed string) bool {
	return path == "properties.redisVersion" && strings.HasPrefix(observed, desired+".")
}

// redisSecrets lists the access keys; the host name and ports come from the status.
func redisSecrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
	r := obj.(*cachev1alpha1.Redis)
	resp, err := call(ctx, "listKeys")
	if err != nil {
		return nil, err
	}
	out := map[string]string{
		"primaryKey": strOf(resp, "primaryKey"), "secondaryKey": strOf(resp, "secondaryKey"),
		"hostName": r.Status.HostName, "port": itoa(r.Status.Port), "sslPort": itoa(r.Status.SSLPort),
	}
	if out["primaryKey"] == "" || out["secondaryKey"] == "" {
		return nil, fmt.Errorf("listKeys returned no primaryKey and secondaryKey")
	}
	return out, nil
}
