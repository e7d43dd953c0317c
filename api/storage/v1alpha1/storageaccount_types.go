package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// StorageAccountGroupKind is the group and kind of StorageAccount, the owner of
// blob containers.
var StorageAccountGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "StorageAccount"}

// StorageAccountSpec is the desired state of a storage account. Field names are
// ARM's, with the properties flattened into the spec as ASO does.
//
// +kubebuilder:validation:XValidation:rule="!has(self.accessTier) || self.accessTier != 'Premium' || self.kind in ['BlockBlobStorage', 'FileStorage']",message="accessTier Premium is only for BlockBlobStorage and FileStorage accounts"
type StorageAccountSpec struct {
	// AzureName is the account's name in Azure, unique across Azure: 3 to 24
	// lowercase letters and digits. It defaults to metadata.name and cannot
	// change.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=24
	// +kubebuilder:validation:Pattern=`^[a-z0-9]+$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the resource group the account lives in: a ResourceGroup of this
	// namespace (name) or an existing resource group's ARM ID (armId). It
	// cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+$')",message="owner.armId must be a resource group ID: /subscriptions/<id>/resourceGroups/<name>"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Location is the Azure region, such as westeurope. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move a storage account to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// Kind of account. Azure only converts Storage and BlobStorage accounts to
	// StorageV2; any other change needs a new account.
	// +kubebuilder:validation:Enum=Storage;StorageV2;BlobStorage;BlockBlobStorage;FileStorage
	// +kubebuilder:validation:XValidation:rule="self == oldSelf || (oldSelf in ['Storage', 'BlobStorage'] && self == 'StorageV2')",message="kind can only change from Storage or BlobStorage to StorageV2"
	Kind string `json:"kind"`

	// Sku is the account's redundancy and performance.
	Sku StorageSku `json:"sku"`

	// AccessTier is the default tier of blobs: Hot, Cool or Cold, or Premium
	// for premium block blob and file accounts.
	// +optional
	// +kubebuilder:validation:Enum=Hot;Cool;Cold;Premium
	AccessTier string `json:"accessTier,omitempty"`

	// AllowBlobPublicAccess allows containers to be made public (publicAccess
	// Blob or Container). Azure's default for new accounts is false.
	// +optional
	AllowBlobPublicAccess *bool `json:"allowBlobPublicAccess,omitempty"`

	// AllowSharedKeyAccess allows requests signed with the account keys. When
	// false, only Entra ID authorization works (exported keys are useless).
	// +optional
	AllowSharedKeyAccess *bool `json:"allowSharedKeyAccess,omitempty"`

	// MinimumTLSVersion is the oldest TLS version clients may use.
	// +optional
	// +kubebuilder:validation:Enum=TLS1_0;TLS1_1;TLS1_2;TLS1_3
	MinimumTLSVersion string `json:"minimumTlsVersion,omitempty"`

	// PublicNetworkAccess allows or denies access from public networks
	// (networkAcls then narrows what is allowed).
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	PublicNetworkAccess string `json:"publicNetworkAccess,omitempty"`

	// SupportsHTTPSTrafficOnly refuses plain HTTP when true (Azure's default).
	// +optional
	SupportsHTTPSTrafficOnly *bool `json:"supportsHttpsTrafficOnly,omitempty"`

	// IsHNSEnabled turns on the hierarchical namespace (Data Lake Storage
	// Gen2). It can only be chosen at creation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="isHnsEnabled is immutable: the hierarchical namespace is chosen at creation"
	IsHNSEnabled *bool `json:"isHnsEnabled,omitempty"`

	// NetworkAcls are the account's firewall rules.
	// +optional
	NetworkAcls *NetworkRuleSet `json:"networkAcls,omitempty"`

	// OperatorSpec says where the operator writes keys and endpoints.
	// +optional
	OperatorSpec *StorageAccountOperatorSpec `json:"operatorSpec,omitempty"`
}

// StorageSku is a storage account's SKU.
type StorageSku struct {
	// Name of the SKU: redundancy (LRS, ZRS, GRS, RAGRS, GZRS, RAGZRS) and
	// performance (Standard or Premium).
	// +kubebuilder:validation:Enum=Standard_LRS;Standard_GRS;Standard_RAGRS;Standard_ZRS;Premium_LRS;Premium_ZRS;Standard_GZRS;Standard_RAGZRS
	Name string `json:"name"`
}

// NetworkRuleSet is a storage account's firewall.
type NetworkRuleSet struct {
	// DefaultAction applies to traffic no rule matches.
	// +kubebuilder:validation:Enum=Allow;Deny
	DefaultAction string `json:"defaultAction"`

	// Bypass lets Azure services through regardless of rules: None, or a
	// comma-separated combination of Logging, Metrics and AzureServices.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(None|((Logging|Metrics|AzureServices)(, ?(Logging|Metrics|AzureServices))*))$`
	Bypass string `json:"bypass,omitempty"`

	// IPRules allow public IPv4 addresses or ranges (at most 400).
	// +optional
	// +listType=map
	// +listMapKey=value
	// +kubebuilder:validation:MaxItems=400
	IPRules []IPRule `json:"ipRules,omitempty"`
}

// IPRule allows an IPv4 address or range through a storage account firewall.
type IPRule struct {
	// Value is an IPv4 address (203.0.113.7) or a CIDR range (203.0.113.0/24).
	// Azure Storage does not accept /31 or /32 ranges: write such addresses
	// as individual rules without a prefix.
	// +kubebuilder:validation:MinLength=7
	// +kubebuilder:validation:MaxLength=18
	// +kubebuilder:validation:XValidation:rule="(isIP(self) && ip(self).family() == 4) || (isCIDR(self) && cidr(self).ip().family() == 4)",message="value must be an IPv4 address or IPv4 CIDR range"
	// +kubebuilder:validation:XValidation:rule="!isCIDR(self) || cidr(self).prefixLength() <= 30",message="storage accounts do not accept /31 or /32 ranges: write each address without a prefix"
	Value string `json:"value"`

	// Action of the rule; Allow is the only one Azure knows.
	// +optional
	// +kubebuilder:default=Allow
	// +kubebuilder:validation:Enum=Allow
	Action string `json:"action,omitempty"`
}

// StorageAccountOperatorSpec says where the account's outputs go.
type StorageAccountOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`

	// Secrets receive the account keys (fetched with listKeys) and, for
	// convenience, endpoints.
	// +optional
	Secrets *StorageAccountOperatorSecrets `json:"secrets,omitempty"`

	// ConfigMaps receive the account's endpoints.
	// +optional
	ConfigMaps *StorageAccountOperatorConfigMaps `json:"configMaps,omitempty"`
}

// StorageAccountOperatorSecrets are the Secret keys the account's keys and
// endpoints are written to.
type StorageAccountOperatorSecrets struct {
	// Key1 is the first account key.
	// +optional
	Key1 *azurev1alpha1.SecretDestination `json:"key1,omitempty"`
	// Key2 is the second account key.
	// +optional
	Key2 *azurev1alpha1.SecretDestination `json:"key2,omitempty"`
	// BlobEndpoint is the primary blob endpoint URL.
	// +optional
	BlobEndpoint *azurev1alpha1.SecretDestination `json:"blobEndpoint,omitempty"`
	// DfsEndpoint is the primary Data Lake endpoint URL.
	// +optional
	DfsEndpoint *azurev1alpha1.SecretDestination `json:"dfsEndpoint,omitempty"`
	// FileEndpoint is the primary file endpoint URL.
	// +optional
	FileEndpoint *azurev1alpha1.SecretDestination `json:"fileEndpoint,omitempty"`
	// QueueEndpoint is the primary queue endpoint URL.
	// +optional
	QueueEndpoint *azurev1alpha1.SecretDestination `json:"queueEndpoint,omitempty"`
	// TableEndpoint is the primary table endpoint URL.
	// +optional
	TableEndpoint *azurev1alpha1.SecretDestination `json:"tableEndpoint,omitempty"`
	// WebEndpoint is the primary static website endpoint URL.
	// +optional
	WebEndpoint *azurev1alpha1.SecretDestination `json:"webEndpoint,omitempty"`
}

// StorageAccountOperatorConfigMaps are the ConfigMap keys the account's
// endpoints are written to.
type StorageAccountOperatorConfigMaps struct {
	// BlobEndpoint is the primary blob endpoint URL.
	// +optional
	BlobEndpoint *azurev1alpha1.ConfigMapDestination `json:"blobEndpoint,omitempty"`
	// DfsEndpoint is the primary Data Lake endpoint URL.
	// +optional
	DfsEndpoint *azurev1alpha1.ConfigMapDestination `json:"dfsEndpoint,omitempty"`
	// FileEndpoint is the primary file endpoint URL.
	// +optional
	FileEndpoint *azurev1alpha1.ConfigMapDestination `json:"fileEndpoint,omitempty"`
	// QueueEndpoint is the primary queue endpoint URL.
	// +optional
	QueueEndpoint *azurev1alpha1.ConfigMapDestination `json:"queueEndpoint,omitempty"`
	// TableEndpoint is the primary table endpoint URL.
	// +optional
	TableEndpoint *azurev1alpha1.ConfigMapDestination `json:"tableEndpoint,omitempty"`
	// WebEndpoint is the primary static website endpoint URL.
	// +optional
	WebEndpoint *azurev1alpha1.ConfigMapDestination `json:"webEndpoint,omitempty"`
}

// Endpoints are a storage account's service URLs.
type Endpoints struct {
	// Blob service URL.
	// +optional
	Blob string `json:"blob,omitempty"`
	// Dfs (Data Lake) service URL.
	// +optional
	Dfs string `json:"dfs,omitempty"`
	// File service URL.
	// +optional
	File string `json:"file,omitempty"`
	// Queue service URL.
	// +optional
	Queue string `json:"queue,omitempty"`
	// Table service URL.
	// +optional
	Table string `json:"table,omitempty"`
	// Web (static website) URL.
	// +optional
	Web string `json:"web,omitempty"`
}

// StorageAccountStatus is the observed state of the storage account.
type StorageAccountStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// PrimaryEndpoints are the URLs of the account's services.
	// +optional
	PrimaryEndpoints *Endpoints `json:"primaryEndpoints,omitempty"`
	// PrimaryLocation is where the primary copy of the data lives.
	// +optional
	PrimaryLocation string `json:"primaryLocation,omitempty"`
	// StatusOfPrimary is available or unavailable.
	// +optional
	StatusOfPrimary string `json:"statusOfPrimary,omitempty"`
}

// StorageAccount is an Azure storage account (Microsoft.Storage/storageAccounts)
// in a resource group. Its name is unique across Azure.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || self.metadata.name.matches('^[a-z0-9]{3,24}$')",message="metadata.name is not a valid storage account name (3-24 lowercase letters and digits): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type StorageAccount struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StorageAccountSpec   `json:"spec"`
	Status StorageAccountStatus `json:"status,omitempty"`
}

// StorageAccountList is a list of StorageAccount.
//
// +kubebuilder:object:root=true
type StorageAccountList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageAccount `json:"items"`
}

var _ azurev1alpha1.Resource = &StorageAccount{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *StorageAccount) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the resource group.
func (x *StorageAccount) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is ResourceGroup: the kind spec.owner.name refers to.
func (x *StorageAccount) OwnerGroupKind() schema.GroupKind {
	return resourcesv1alpha1.ResourceGroupGroupKind
}

// AzureStatus is the common part of the status.
func (x *StorageAccount) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *StorageAccount) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
