package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// ManagedClusterGroupKind is the group and kind of ManagedCluster, the owner of its agent pools.
var ManagedClusterGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "ManagedCluster"}

// ManagedClusterSpec is the desired state of an AKS cluster. Field names are
// ARM's, with the properties flattened into the spec as ASO does.
//
// +kubebuilder:validation:XValidation:rule="!has(self.securityProfile) || !has(self.securityProfile.workloadIdentity) || !has(self.securityProfile.workloadIdentity.enabled) || !self.securityProfile.workloadIdentity.enabled || (has(self.oidcIssuerProfile) && has(self.oidcIssuerProfile.enabled) && self.oidcIssuerProfile.enabled)",message="workload identity needs oidcIssuerProfile.enabled"
type ManagedClusterSpec struct {
	// AzureName is the cluster's name in Azure: 1 to 63 letters, digits, '-'
	// and '_', starting and ending with a letter or digit. It defaults to
	// metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]([-_a-zA-Z0-9]*[a-zA-Z0-9])?$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the resource group the cluster lives in: a ResourceGroup of this
	// namespace (name) or an existing resource group's ARM ID (armId). It
	// cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+$')",message="owner.armId must be a resource group ID: /subscriptions/<id>/resourceGroups/<name>"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Location is the Azure region, such as westeurope. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move a cluster to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// Sku is the cluster's control-plane tier.
	// +optional
	Sku *ManagedClusterSKU `json:"sku,omitempty"`

	// KubernetesVersion is the Kubernetes version, such as 1.33 or 1.33.2.
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]+(\.[0-9]+)?$`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`

	// DnsPrefix is the prefix of the API server's host name: 1 to 54 letters,
	// digits and hyphens, starting and ending with a letter or digit. It
	// cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=54
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="dnsPrefix is immutable"
	DNSPrefix string `json:"dnsPrefix,omitempty"`

	// NodeResourceGroup is the resource group AKS creates for the cluster's
	// infrastructure. Defaults to MC_<group>_<cluster>_<location>; it cannot
	// change.
	// +optional
	// +kubebuilder:validation:MaxLength=80
	// +kubebuilder:validation:Pattern=`^[-\w\._\(\)]*[-\w_\(\)]$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nodeResourceGroup is immutable"
	NodeResourceGroup string `json:"nodeResourceGroup,omitempty"`

	// AgentPoolProfiles are the cluster's node pools. At least one must have
	// mode System (Linux, at least one node) to run system pods.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.exists(p, has(p.mode) && p.mode == 'System')",message="at least one agent pool must have mode System"
	AgentPoolProfiles []ManagedClusterAgentPoolProfile `json:"agentPoolProfiles"`

	// Identity is the cluster's own identity for managing Azure resources.
	// +optional
	Identity *ManagedClusterIdentity `json:"identity,omitempty"`

	// NetworkProfile is the cluster's network configuration.
	// +optional
	NetworkProfile *ContainerServiceNetworkProfile `json:"networkProfile,omitempty"`

	// ApiServerAccessProfile restricts access to the API server.
	// +optional
	APIServerAccessProfile *ManagedClusterAPIServerAccessProfile `json:"apiServerAccessProfile,omitempty"`

	// OidcIssuerProfile publishes the cluster's service-account issuer, so
	// Entra ID can trust its tokens (workload identity).
	// +optional
	OIDCIssuerProfile *ManagedClusterOIDCIssuerProfile `json:"oidcIssuerProfile,omitempty"`

	// SecurityProfile holds security features of the cluster.
	// +optional
	SecurityProfile *ManagedClusterSecurityProfile `json:"securityProfile,omitempty"`

	// OperatorSpec says where the operator writes kubeconfigs and outputs.
	// +optional
	OperatorSpec *ManagedClusterOperatorSpec `json:"operatorSpec,omitempty"`
}

// ManagedClusterSKU is the cluster's control-plane tier.
type ManagedClusterSKU struct {
	// Name of the SKU.
	// +optional
	// +kubebuilder:validation:Enum=Base;Automatic
	Name string `json:"name,omitempty"`
	// Tier: Free (no SLA), Standard (uptime SLA) or Premium.
	// +optional
	// +kubebuilder:validation:Enum=Free;Standard;Premium
	Tier string `json:"tier,omitempty"`
}

// ManagedClusterAgentPoolProfile is a node pool.
//
// +kubebuilder:validation:XValidation:rule="!has(self.mode) || self.mode != 'System' || ((!has(self.osType) || self.osType == 'Linux') && (!has(self.count) || self.count >= 1))",message="a System pool runs Linux and has at least one node"
// +kubebuilder:validation:XValidation:rule="!has(self.osType) || self.osType != 'Windows' || size(self.name) <= 6",message="a Windows pool name is at most 6 characters"
type ManagedClusterAgentPoolProfile struct {
	// Name of the pool: a lowercase letter followed by up to 11 lowercase
	// letters and digits (Windows pools: 6 characters in all).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=12
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9]*$`
	Name string `json:"name"`

	// Count is the number of nodes: 0 to 1000 (at least 1 in System pools).
	// Azure's default is 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Count *int32 `json:"count,omitempty"`

	// VmSize is the nodes' VM size, such as Standard_D4ds_v5. It cannot change:
	// add a pool of the new size instead.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="vmSize is immutable: add a pool of the new size instead"
	VMSize string `json:"vmSize,omitempty"`

	// Mode is System (runs system pods; at least one per cluster) or User.
	// +optional
	// +kubebuilder:validation:Enum=System;User
	Mode string `json:"mode,omitempty"`

	// OsType is the nodes' operating system.
	// +optional
	// +kubebuilder:validation:Enum=Linux;Windows
	OSType string `json:"osType,omitempty"`

	// EnableAutoScaling scales the pool between minCount and maxCount.
	// +optional
	EnableAutoScaling *bool `json:"enableAutoScaling,omitempty"`

	// MinCount is the autoscaler's lower bound.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	MinCount *int32 `json:"minCount,omitempty"`

	// MaxCount is the autoscaler's upper bound.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	MaxCount *int32 `json:"maxCount,omitempty"`

	// AvailabilityZones the nodes are spread over, such as ["1","2","3"].
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxLength=8
	AvailabilityZones []string `json:"availabilityZones,omitempty"`
}

// ManagedClusterIdentity is the cluster's identity.
//
// +kubebuilder:validation:XValidation:rule="(self.type == 'UserAssigned') == (has(self.userAssignedIdentities) && size(self.userAssignedIdentities) > 0)",message="userAssignedIdentities is required with type UserAssigned and not allowed otherwise"
type ManagedClusterIdentity struct {
	// Type of identity.
	// +kubebuilder:validation:Enum=SystemAssigned;UserAssigned;None
	Type string `json:"type"`

	// UserAssignedIdentities is the identity to use with type UserAssigned
	// (AKS takes exactly one).
	// +optional
	// +kubebuilder:validation:MaxItems=1
	UserAssignedIdentities []UserAssignedIdentityDetails `json:"userAssignedIdentities,omitempty"`
}

// UserAssignedIdentityDetails names a user-assigned identity.
type UserAssignedIdentityDetails struct {
	// Reference is the identity: a UserAssignedIdentity of this namespace
	// (name) or an existing identity's ARM ID (armId).
	Reference IdentityReference `json:"reference"`
}

// IdentityReference names a user-assigned identity by name (a
// UserAssignedIdentity of this namespace) or ARM ID.
//
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.armId)",message="set exactly one of name and armId"
type IdentityReference struct {
	// Name of a UserAssignedIdentity in this namespace.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
	// ARMID of a user-assigned identity.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+$`
	ARMID string `json:"armId,omitempty"`
}

// ContainerServiceNetworkProfile is the cluster's network configuration.
type ContainerServiceNetworkProfile struct {
	// NetworkPlugin builds the pod network.
	// +optional
	// +kubebuilder:validation:Enum=azure;kubenet;none
	NetworkPlugin string `json:"networkPlugin,omitempty"`
	// NetworkPluginMode overlay gives pods addresses outside the VNet (azure
	// plugin only).
	// +optional
	// +kubebuilder:validation:Enum=overlay
	NetworkPluginMode string `json:"networkPluginMode,omitempty"`
	// NetworkPolicy enforces Kubernetes network policies.
	// +optional
	// +kubebuilder:validation:Enum=none;azure;calico;cilium
	NetworkPolicy string `json:"networkPolicy,omitempty"`
	// PodCidr is the pods' address range (kubenet and overlay).
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="podCidr must be a CIDR range"
	PodCIDR string `json:"podCidr,omitempty"`
	// ServiceCidr is the services' address range; it must not overlap any
	// network the cluster reaches.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="serviceCidr must be a CIDR range"
	ServiceCIDR string `json:"serviceCidr,omitempty"`
	// DnsServiceIP is the cluster DNS service's address, inside serviceCidr.
	// +optional
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="dnsServiceIP must be an IP address"
	DNSServiceIP string `json:"dnsServiceIP,omitempty"`
}

// ManagedClusterAPIServerAccessProfile restricts access to the API server.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enablePrivateCluster) || !self.enablePrivateCluster || !has(self.authorizedIPRanges) || size(self.authorizedIPRanges) == 0",message="authorizedIPRanges does not apply to a private cluster"
type ManagedClusterAPIServerAccessProfile struct {
	// AuthorizedIPRanges are the CIDR ranges allowed to reach the API server
	// (at most 200), such as 203.0.113.0/24; a single address is written
	// with /32.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=200
	AuthorizedIPRanges []CIDR `json:"authorizedIPRanges,omitempty"`
	// EnablePrivateCluster gives the API server only a private address. It
	// can only be chosen at creation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="enablePrivateCluster is immutable"
	EnablePrivateCluster *bool `json:"enablePrivateCluster,omitempty"`
}

// CIDR is an IP range in CIDR notation, such as 203.0.113.0/24.
//
// +kubebuilder:validation:MaxLength=43
// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="must be a CIDR range such as 203.0.113.0/24 (a single address is written with /32)"
type CIDR string

// ManagedClusterOIDCIssuerProfile publishes the cluster's service-account
// issuer.
type ManagedClusterOIDCIssuerProfile struct {
	// Enabled publishes the issuer. Once enabled it cannot be disabled.
	// +optional
	// +kubebuilder:validation:XValidation:rule="oldSelf == false || self == true",message="the OIDC issuer cannot be disabled once enabled"
	Enabled *bool `json:"enabled,omitempty"`
}

// ManagedClusterSecurityProfile holds security features of the cluster.
type ManagedClusterSecurityProfile struct {
	// WorkloadIdentity lets pods exchange service-account tokens for Entra ID
	// tokens.
	// +optional
	WorkloadIdentity *ManagedClusterSecurityProfileWorkloadIdentity `json:"workloadIdentity,omitempty"`
}

// ManagedClusterSecurityProfileWorkloadIdentity turns on workload identity.
type ManagedClusterSecurityProfileWorkloadIdentity struct {
	// Enabled turns the workload identity webhook on.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// ManagedClusterOperatorSpec says where the cluster's outputs go.
type ManagedClusterOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`

	// Secrets receive kubeconfigs (fetched with listClusterAdminCredential and
	// listClusterUserCredential).
	// +optional
	Secrets *ManagedClusterOperatorSecrets `json:"secrets,omitempty"`

	// ConfigMaps receive non-secret outputs.
	// +optional
	ConfigMaps *ManagedClusterOperatorConfigMaps `json:"configMaps,omitempty"`
}

// ManagedClusterOperatorSecrets are the Secret keys kubeconfigs are written to.
type ManagedClusterOperatorSecrets struct {
	// AdminCredentials is a cluster-admin kubeconfig. Grant it sparingly.
	// +optional
	AdminCredentials *azurev1alpha1.SecretDestination `json:"adminCredentials,omitempty"`
	// UserCredentials is a user kubeconfig (Entra ID login when the cluster
	// uses Entra ID authentication).
	// +optional
	UserCredentials *azurev1alpha1.SecretDestination `json:"userCredentials,omitempty"`
}

// ManagedClusterOperatorConfigMaps are the ConfigMap keys the cluster's
// non-secret outputs are written to.
type ManagedClusterOperatorConfigMaps struct {
	// OIDCIssuerProfile is the issuer URL of the cluster's service-account
	// tokens, for federated identity credentials.
	// +optional
	OIDCIssuerProfile *azurev1alpha1.ConfigMapDestination `json:"oidcIssuerProfile,omitempty"`
	// PrincipalID is the object ID of the cluster's system-assigned identity.
	// +optional
	PrincipalID *azurev1alpha1.ConfigMapDestination `json:"principalId,omitempty"`
}

// ManagedClusterStatus is the observed state of the cluster. Its
// provisioningState is in the common part.
type ManagedClusterStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// Fqdn is the API server's host name.
	// +optional
	FQDN string `json:"fqdn,omitempty"`
	// PrivateFQDN is the API server's private host name (private clusters).
	// +optional
	PrivateFQDN string `json:"privateFQDN,omitempty"`
	// NodeResourceGroup is the resource group holding the cluster's
	// infrastructure.
	// +optional
	NodeResourceGroup string `json:"nodeResourceGroup,omitempty"`
	// CurrentKubernetesVersion is the version the control plane runs.
	// +optional
	CurrentKubernetesVersion string `json:"currentKubernetesVersion,omitempty"`
	// PowerState is Running or Stopped.
	// +optional
	PowerState string `json:"powerState,omitempty"`
	// OIDCIssuerURL is the issuer of the cluster's service-account tokens.
	// +optional
	OIDCIssuerURL string `json:"oidcIssuerURL,omitempty"`
	// PrincipalID is the object ID of the cluster's system-assigned identity.
	// +optional
	PrincipalID string `json:"principalId,omitempty"`
}

// ManagedCluster is an AKS cluster (Microsoft.ContainerService/managedClusters)
// in a resource group.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",message="metadata.name is not a valid cluster name (1-63 letters, digits, '-' and '_'): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type ManagedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ManagedClusterSpec   `json:"spec"`
	Status ManagedClusterStatus `json:"status,omitempty"`
}

// ManagedClusterList is a list of ManagedCluster.
//
// +kubebuilder:object:root=true
type ManagedClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ManagedCluster `json:"items"`
}

var _ azurev1alpha1.Resource = &ManagedCluster{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *ManagedCluster) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the resource group.
func (x *ManagedCluster) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is ResourceGroup: the kind spec.owner.name refers to.
func (x *ManagedCluster) OwnerGroupKind() schema.GroupKind {
	return resourcesv1alpha1.ResourceGroupGroupKind
}

// AzureStatus is the common part of the status.
func (x *ManagedCluster) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *ManagedCluster) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
