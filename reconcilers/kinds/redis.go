package kinds

import (
	"context"
	"fmt"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	cachev1alpha1 "github.com/aztenant/aztenant/api/cache/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// Redis adapts Microsoft.Cache/redis. Its SKU is inside properties, as in ARM.
// ARM reports the Redis version more precisely than it was asked for
// (equivalent), and the access keys are exported with listKeys.
type Redis struct{}

var _ reconcilers.Kind = Redis{}

func (Redis) New() azurev1alpha1.Resource { return &cachev1alpha1.Redis{} }
func (Redis) Facts() reconcilers.Facts {
	return reconcilers.Facts{ResourceType: "Microsoft.Cache/redis", APIVersion: "2024-03-01", OwnerKind: resourcesv1alpha1.ResourceGroupGroupKind}
}
func (k Redis) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{
		Location: func(obj azurev1alpha1.Resource) string {
			return armLocation(obj.(*cachev1alpha1.Redis).Spec.Location)
		},
		Equivalent:         k.equivalent,
		SecretDestinations: k.secretDestinations,
		Secrets:            k.secrets,
	}
}

func (Redis) Desired(obj azurev1alpha1.Resource, _ map[string]string) (map[string]any, error) {
	sp := obj.(*cachev1alpha1.Redis).Spec
	props := map[string]any{
		"sku": map[string]any{"name": sp.Sku.Name, "family": sp.Sku.Family, "capacity": sp.Sku.Capacity},
	}
	putBool(props, "enableNonSslPort", sp.EnableNonSslPort)
	putStr(props, "minimumTlsVersion", sp.MinimumTLSVersion)
	putStr(props, "publicNetworkAccess", sp.PublicNetworkAccess)
	putStr(props, "redisVersion", sp.RedisVersion)
	if len(sp.RedisConfiguration) > 0 {
		props["redisConfiguration"] = putTags(sp.RedisConfiguration)
	}
	putInt(props, "shardCount", sp.ShardCount)
	return map[string]any{"location": armLocation(sp.Location), "tags": putTags(sp.Tags), "properties": props}, nil
}

// equivalent accepts the patch version ARM reports for the requested major
// (or major.minor) Redis version: "6" is satisfied by "6.0.20".
func (Redis) equivalent(path, desired, observed string) bool {
	return path == "properties.redisVersion" && strings.HasPrefix(observed, desired+".")
}

func (Redis) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	r := obj.(*cachev1alpha1.Redis)
	p := propsOf(actual)
	r.Status.HostName = strOf(p, "hostName")
	r.Status.Port = int32Of(p, "port")
	r.Status.SSLPort = int32Of(p, "sslPort")
	r.Status.RedisVersion = strOf(p, "redisVersion")
}

func (Redis) secretDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.SecretDestination {
	os := obj.(*cachev1alpha1.Redis).Spec.OperatorSpec
	if os == nil || os.Secrets == nil {
		return nil
	}
	s := os.Secrets
	return map[string]*azurev1alpha1.SecretDestination{
		"primaryKey": s.PrimaryKey, "secondaryKey": s.SecondaryKey, "hostName": s.HostName, "port": s.Port, "sslPort": s.SSLPort,
	}
}

// secrets lists the access keys; the host name and ports come from status.
func (Redis) secrets(ctx context.Context, call reconcilers.ActionCaller, obj azurev1alpha1.Resource) (map[string]string, error) {
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
