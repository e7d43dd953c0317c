package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// RedisGroupKind is the group and kind of Redis, the owner of its firewall rules.
var RedisGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "Redis"}

// RedisSpec is the desired state of an Azure Cache for Redis. Field names are
// ARM's, with the properties flattened into the spec as ASO does.
//
// +kubebuilder:validation:XValidation:rule="!has(self.shardCount) || self.sku.name == 'Premium'",message="shardCount (clustering) needs the Premium sku"
type RedisSpec struct {
	// AzureName is the cache's name in Azure, unique across Azure: 1 to 63
	// letters, digits and single hyphens, starting and ending with a letter or
	// digit. It defaults to metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9](-?[a-zA-Z0-9])*$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the resource group the cache lives in: a ResourceGroup of this
	// namespace (name) or an existing resource group's ARM ID (armId). It
	// cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+$')",message="owner.armId must be a resource group ID: /subscriptions/<id>/resourceGroups/<name>"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Location is the Azure region, such as westeurope. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move a cache to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// Sku is the cache's tier and size.
	Sku RedisSku `json:"sku"`

	// EnableNonSslPort opens the plain-text port 6379 (Azure's default is
	// false).
	// +optional
	EnableNonSslPort *bool `json:"enableNonSslPort,omitempty"`

	// MinimumTlsVersion is the oldest TLS version clients may use.
	// +optional
	// +kubebuilder:validation:Enum="1.0";"1.1";"1.2"
	MinimumTLSVersion string `json:"minimumTlsVersion,omitempty"`

	// PublicNetworkAccess allows or denies access from public networks.
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	PublicNetworkAccess string `json:"publicNetworkAccess,omitempty"`

	// RedisVersion is the Redis major version, such as 6, or latest.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^(latest|[0-9]+(\.[0-9]+)?)$`
	RedisVersion string `json:"redisVersion,omitempty"`

	// RedisConfiguration are Redis settings Azure lets you change, such as
	// maxmemory-policy or maxmemory-reserved.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	RedisConfiguration map[string]string `json:"redisConfiguration,omitempty"`

	// ShardCount is the number of shards of a clustered (Premium) cache.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=30
	ShardCount *int32 `json:"shardCount,omitempty"`

	// OperatorSpec says where the operator writes keys and the host name.
	// +optional
	OperatorSpec *RedisOperatorSpec `json:"operatorSpec,omitempty"`
}

// RedisSku is a cache's tier and size. Azure scales up (Basic to Standard to
// Premium) but never down to a lower tier.
//
// +kubebuilder:validation:XValidation:rule="(self.name == 'Premium') == (self.family == 'P')",message="family P goes with Premium, family C with Basic and Standard"
// +kubebuilder:validation:XValidation:rule="self.family == 'C' ? self.capacity <= 6 : (self.capacity >= 1 && self.capacity <= 5)",message="capacity is 0-6 for family C and 1-5 for family P"
// +kubebuilder:validation:XValidation:rule="!(oldSelf.name == 'Premium' && self.name != 'Premium') && !(oldSelf.name == 'Standard' && self.name == 'Basic')",message="a cache cannot be scaled down to a lower tier"
type RedisSku struct {
	// Name is the tier.
	// +kubebuilder:validation:Enum=Basic;Standard;Premium
	Name string `json:"name"`
	// Family is C for Basic and Standard, P for Premium.
	// +kubebuilder:validation:Enum=C;P
	Family string `json:"family"`
	// Capacity is the size within the family: 0-6 for C, 1-5 for P.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=6
	Capacity int32 `json:"capacity"`
}

// RedisOperatorSpec says where the cache's outputs go.
type RedisOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`

	// Secrets receive the access keys (fetched with listKeys) and connection
	// details.
	// +optional
	Secrets *RedisOperatorSecrets `json:"secrets,omitempty"`
}

// RedisOperatorSecrets are the Secret keys the cache's keys and connection
// details are written to.
type RedisOperatorSecrets struct {
	// PrimaryKey is the primary access key.
	// +optional
	PrimaryKey *azurev1alpha1.SecretDestination `json:"primaryKey,omitempty"`
	// SecondaryKey is the secondary access key.
	// +optional
	SecondaryKey *azurev1alpha1.SecretDestination `json:"secondaryKey,omitempty"`
	// HostName is the cache's DNS name.
	// +optional
	HostName *azurev1alpha1.SecretDestination `json:"hostName,omitempty"`
	// Port is the plain-text port (when enabled).
	// +optional
	Port *azurev1alpha1.SecretDestination `json:"port,omitempty"`
	// SSLPort is the TLS port.
	// +optional
	SSLPort *azurev1alpha1.SecretDestination `json:"sslPort,omitempty"`
}

// RedisStatus is the observed state of the cache.
type RedisStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// HostName is the cache's DNS name.
	// +optional
	HostName string `json:"hostName,omitempty"`
	// Port is the plain-text port.
	// +optional
	Port *int32 `json:"port,omitempty"`
	// SSLPort is the TLS port.
	// +optional
	SSLPort *int32 `json:"sslPort,omitempty"`
	// RedisVersion is the exact Redis version running.
	// +optional
	RedisVersion string `json:"redisVersion,omitempty"`
}

// Redis is an Azure Cache for Redis (Microsoft.Cache/redis) in a resource
// group. Its name is unique across Azure.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9](-?[a-z0-9])*$'))",message="metadata.name is not a valid cache name (1-63 letters, digits and single hyphens): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type Redis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RedisSpec   `json:"spec"`
	Status RedisStatus `json:"status,omitempty"`
}

// RedisList is a list of Redis.
//
// +kubebuilder:object:root=true
type RedisList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Redis `json:"items"`
}

var _ azurev1alpha1.Resource = &Redis{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *Redis) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the resource group.
func (x *Redis) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is ResourceGroup: the kind spec.owner.name refers to.
func (x *Redis) OwnerGroupKind() schema.GroupKind { return resourcesv1alpha1.ResourceGroupGroupKind }

// AzureStatus is the common part of the status.
func (x *Redis) AzureStatus() *azurev1alpha1.ResourceStatus { return &x.Status.ResourceStatus }

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *Redis) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
