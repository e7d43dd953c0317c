package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
)

// FlexibleServerGroupKind is the group and kind of FlexibleServer, the owner
// of databases and firewall rules.
var FlexibleServerGroupKind = schema.GroupKind{Group: GroupVersion.Group, Kind: "FlexibleServer"}

// FlexibleServerSpec is the desired state of a PostgreSQL flexible server.
// Field names are ARM's, with the properties flattened into the spec as ASO
// does.
//
// +kubebuilder:validation:XValidation:rule="!has(self.highAvailability) || !has(self.highAvailability.mode) || self.highAvailability.mode == 'Disabled' || self.sku.tier != 'Burstable'",message="high availability is not available on the Burstable tier"
// +kubebuilder:validation:XValidation:rule="has(self.administratorLogin) == has(self.administratorLoginPassword)",message="set administratorLogin and administratorLoginPassword together"
type FlexibleServerSpec struct {
	// AzureName is the server's name in Azure, unique across Azure: 3 to 63
	// lowercase letters, digits and hyphens, not starting or ending with a
	// hyphen. It defaults to metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9][-a-z0-9]*[a-z0-9]$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the resource group the server lives in: a ResourceGroup of this
	// namespace (name) or an existing resource group's ARM ID (armId). It
	// cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+$')",message="owner.armId must be a resource group ID: /subscriptions/<id>/resourceGroups/<name>"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Location is the Azure region, such as westeurope. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable: Azure cannot move a server to another region"
	Location azurev1alpha1.Location `json:"location"`

	// Tags are Azure resource tags: at most 50, names up to 512 characters,
	// values up to 256.
	// +optional
	// +kubebuilder:validation:MaxProperties=50
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) <= 512 && size(self[k]) <= 256)",message="tag names are at most 512 characters and values at most 256"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aztenant.io-') && !k.lowerAscii().startsWith('aztenant.io/'))",message="tags beginning with aztenant.io- are reserved for the operator"
	Tags map[string]string `json:"tags,omitempty"`

	// Version is the PostgreSQL major version. A server can be upgraded in
	// place to a newer major version, never downgraded.
	// +kubebuilder:validation:Enum="11";"12";"13";"14";"15";"16";"17"
	// +kubebuilder:validation:XValidation:rule="int(self) >= int(oldSelf)",message="version cannot be downgraded"
	Version string `json:"version"`

	// Sku is the server's compute.
	Sku FlexibleServerSku `json:"sku"`

	// Storage is the server's disk.
	// +optional
	Storage *FlexibleServerStorage `json:"storage,omitempty"`

	// AdministratorLogin is the name of the server's administrator. It can only
	// be chosen at creation; reserved names (azure_superuser, azure_pg_admin,
	// admin, administrator, root, guest, public and names starting with pg_)
	// are refused.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z_][a-zA-Z0-9_]*$`
	// +kubebuilder:validation:XValidation:rule="!(self in ['azure_superuser', 'azure_pg_admin', 'admin', 'administrator', 'root', 'guest', 'public']) && !self.startsWith('pg_')",message="administratorLogin is a reserved name"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="administratorLogin is immutable"
	AdministratorLogin string `json:"administratorLogin,omitempty"`

	// AdministratorLoginPassword is a key of a Secret in this namespace holding
	// the administrator's password. ARM never returns it (it is write-only), so
	// it is sent when the Secret changes, not compared.
	// +optional
	AdministratorLoginPassword *SecretReference `json:"administratorLoginPassword,omitempty"`

	// Network is how clients reach the server.
	// +optional
	Network *FlexibleServerNetwork `json:"network,omitempty"`

	// HighAvailability keeps a standby replica.
	// +optional
	HighAvailability *FlexibleServerHighAvailability `json:"highAvailability,omitempty"`

	// Backup is the server's backup policy.
	// +optional
	Backup *FlexibleServerBackup `json:"backup,omitempty"`

	// AvailabilityZone is the zone of the primary, such as 1.
	// +optional
	// +kubebuilder:validation:MaxLength=8
	AvailabilityZone string `json:"availabilityZone,omitempty"`

	// OperatorSpec says where the operator writes the server's host name.
	// +optional
	OperatorSpec *FlexibleServerOperatorSpec `json:"operatorSpec,omitempty"`
}

// SecretReference is a key of a Secret in the resource's own namespace.
type SecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// FlexibleServerSku is the server's compute size and tier.
type FlexibleServerSku struct {
	// Name of the compute size, such as Standard_B1ms or Standard_D2ds_v5.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^Standard_[A-Za-z0-9_]+$`
	Name string `json:"name"`
	// Tier of the size.
	// +kubebuilder:validation:Enum=Burstable;GeneralPurpose;MemoryOptimized
	Tier string `json:"tier"`
}

// FlexibleServerStorage is the server's disk.
type FlexibleServerStorage struct {
	// StorageSizeGB is the disk size in GiB. It can grow, never shrink.
	// +optional
	// +kubebuilder:validation:Minimum=32
	// +kubebuilder:validation:Maximum=32767
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="storageSizeGB can grow but not shrink"
	StorageSizeGB *int32 `json:"storageSizeGB,omitempty"`
	// AutoGrow grows the disk when it fills up.
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	AutoGrow string `json:"autoGrow,omitempty"`
}

// FlexibleServerNetwork is how clients reach the server.
type FlexibleServerNetwork struct {
	// PublicNetworkAccess: Enabled for access over the internet (narrowed by
	// FlexibleServersFirewallRules), Disabled for private access only. The
	// connectivity method is chosen at creation.
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="publicNetworkAccess is immutable: the connectivity method is chosen at creation"
	PublicNetworkAccess string `json:"publicNetworkAccess,omitempty"`
}

// FlexibleServerHighAvailability keeps a standby replica.
type FlexibleServerHighAvailability struct {
	// Mode of high availability.
	// +optional
	// +kubebuilder:validation:Enum=Disabled;ZoneRedundant;SameZone
	Mode string `json:"mode,omitempty"`
	// StandbyAvailabilityZone is the zone of the standby, such as 2.
	// +optional
	// +kubebuilder:validation:MaxLength=8
	StandbyAvailabilityZone string `json:"standbyAvailabilityZone,omitempty"`
}

// FlexibleServerBackup is the server's backup policy.
type FlexibleServerBackup struct {
	// BackupRetentionDays is how long backups are kept (7 to 35 days).
	// +optional
	// +kubebuilder:validation:Minimum=7
	// +kubebuilder:validation:Maximum=35
	BackupRetentionDays *int32 `json:"backupRetentionDays,omitempty"`
	// GeoRedundantBackup copies backups to the paired region. It can only be
	// chosen at creation.
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="geoRedundantBackup is immutable: it is chosen at creation"
	GeoRedundantBackup string `json:"geoRedundantBackup,omitempty"`
}

// FlexibleServerOperatorSpec says where the server's outputs go.
type FlexibleServerOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`

	// ConfigMaps receive the server's host name.
	// +optional
	ConfigMaps *FlexibleServerOperatorConfigMaps `json:"configMaps,omitempty"`
}

// FlexibleServerOperatorConfigMaps are the ConfigMap keys the server's outputs
// are written to.
type FlexibleServerOperatorConfigMaps struct {
	// FullyQualifiedDomainName is the server's host name.
	// +optional
	FullyQualifiedDomainName *azurev1alpha1.ConfigMapDestination `json:"fullyQualifiedDomainName,omitempty"`
}

// FlexibleServerStatus is the observed state of the server.
type FlexibleServerStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`

	// FullyQualifiedDomainName is the server's host name.
	// +optional
	FullyQualifiedDomainName string `json:"fullyQualifiedDomainName,omitempty"`
	// State of the server: Ready, Starting, Stopped, Updating and so on.
	// +optional
	State string `json:"state,omitempty"`
	// MinorVersion is the PostgreSQL minor version running.
	// +optional
	MinorVersion string `json:"minorVersion,omitempty"`
}

// FlexibleServer is an Azure Database for PostgreSQL flexible server
// (Microsoft.DBforPostgreSQL/flexibleServers) in a resource group. Its name is
// unique across Azure.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || (size(self.metadata.name) >= 3 && size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9][-a-z0-9]*[a-z0-9]$'))",message="metadata.name is not a valid server name (3-63 lowercase letters, digits and hyphens): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type FlexibleServer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FlexibleServerSpec   `json:"spec"`
	Status FlexibleServerStatus `json:"status,omitempty"`
}

// FlexibleServerList is a list of FlexibleServer.
//
// +kubebuilder:object:root=true
type FlexibleServerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FlexibleServer `json:"items"`
}

var _ azurev1alpha1.Resource = &FlexibleServer{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *FlexibleServer) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the resource group.
func (x *FlexibleServer) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is ResourceGroup: the kind spec.owner.name refers to.
func (x *FlexibleServer) OwnerGroupKind() schema.GroupKind {
	return resourcesv1alpha1.ResourceGroupGroupKind
}

// AzureStatus is the common part of the status.
func (x *FlexibleServer) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *FlexibleServer) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
