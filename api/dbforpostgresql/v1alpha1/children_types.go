package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// FlexibleServersDatabaseSpec is the desired state of a database of a flexible
// server.
type FlexibleServersDatabaseSpec struct {
	// AzureName is the database's name: 1 to 63 letters, digits, '-', '_' or
	// '.'. It defaults to metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[-\w\.]+$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the server: a FlexibleServer of this namespace (name) or an
	// existing server's ARM ID (armId). It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft.DBforPostgreSQL/flexibleServers/[^/]+$')",message="owner.armId must be a PostgreSQL flexible server ID"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// Charset of the database, such as UTF8. It cannot change.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="charset is immutable"
	Charset string `json:"charset,omitempty"`

	// Collation of the database, such as en_US.utf8. It cannot change.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[-A-Za-z0-9_. ]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="collation is immutable"
	Collation string `json:"collation,omitempty"`

	// OperatorSpec holds CEL exports, if any.
	// +optional
	OperatorSpec *FlexibleServersDatabaseOperatorSpec `json:"operatorSpec,omitempty"`
}

// FlexibleServersDatabaseOperatorSpec holds the CEL exports of a database.
type FlexibleServersDatabaseOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// FlexibleServersDatabaseStatus is the observed state of the database.
type FlexibleServersDatabaseStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`
}

// FlexibleServersDatabase is a database of a PostgreSQL flexible server
// (Microsoft.DBforPostgreSQL/flexibleServers/databases). Tags are not supported
// by Azure on this type.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || size(self.metadata.name) <= 63",message="metadata.name is longer than a database name may be (63): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type FlexibleServersDatabase struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FlexibleServersDatabaseSpec   `json:"spec"`
	Status FlexibleServersDatabaseStatus `json:"status,omitempty"`
}

// FlexibleServersDatabaseList is a list of FlexibleServersDatabase.
//
// +kubebuilder:object:root=true
type FlexibleServersDatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FlexibleServersDatabase `json:"items"`
}

var _ azurev1alpha1.Resource = &FlexibleServersDatabase{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *FlexibleServersDatabase) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the server.
func (x *FlexibleServersDatabase) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is FlexibleServer: the kind spec.owner.name refers to.
func (x *FlexibleServersDatabase) OwnerGroupKind() schema.GroupKind { return FlexibleServerGroupKind }

// AzureStatus is the common part of the status.
func (x *FlexibleServersDatabase) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *FlexibleServersDatabase) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}

// FlexibleServersFirewallRuleSpec is the desired state of a firewall rule of a
// flexible server: an inclusive range of public IPv4 addresses allowed to
// connect. The range 0.0.0.0-0.0.0.0 means "allow Azure services".
//
// +kubebuilder:validation:XValidation:rule="!(isIP(self.startIpAddress) && isIP(self.endIpAddress) && ip(self.startIpAddress).family() == 4 && ip(self.endIpAddress).family() == 4) || int(self.startIpAddress.split('.')[0]) * 16777216 + int(self.startIpAddress.split('.')[1]) * 65536 + int(self.startIpAddress.split('.')[2]) * 256 + int(self.startIpAddress.split('.')[3]) <= int(self.endIpAddress.split('.')[0]) * 16777216 + int(self.endIpAddress.split('.')[1]) * 65536 + int(self.endIpAddress.split('.')[2]) * 256 + int(self.endIpAddress.split('.')[3])",message="startIpAddress must not be after endIpAddress"
type FlexibleServersFirewallRuleSpec struct {
	// AzureName is the rule's name: 1 to 128 letters, digits, '-', '_' or
	// '.'. It defaults to metadata.name and cannot change.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[-\w\.]+$`
	AzureName string `json:"azureName,omitempty"`

	// Owner is the server: a FlexibleServer of this namespace (name) or an
	// existing server's ARM ID (armId). It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable: create a new resource to move it"
	// +kubebuilder:validation:XValidation:rule="!has(self.armId) || self.armId.matches('^(?i)/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft.DBforPostgreSQL/flexibleServers/[^/]+$')",message="owner.armId must be a PostgreSQL flexible server ID"
	Owner *azurev1alpha1.OwnerReference `json:"owner"`

	// StartIpAddress is the first IPv4 address of the range.
	// +kubebuilder:validation:MinLength=7
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="isIP(self) && ip(self).family() == 4",message="startIpAddress must be an IPv4 address"
	StartIPAddress string `json:"startIpAddress"`

	// EndIpAddress is the last IPv4 address of the range (inclusive).
	// +kubebuilder:validation:MinLength=7
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="isIP(self) && ip(self).family() == 4",message="endIpAddress must be an IPv4 address"
	EndIPAddress string `json:"endIpAddress"`

	// OperatorSpec holds CEL exports, if any.
	// +optional
	OperatorSpec *FlexibleServersFirewallRuleOperatorSpec `json:"operatorSpec,omitempty"`
}

// FlexibleServersFirewallRuleOperatorSpec holds the CEL exports of a firewall
// rule.
type FlexibleServersFirewallRuleOperatorSpec struct {
	azurev1alpha1.OperatorExpressions `json:",inline"`
}

// FlexibleServersFirewallRuleStatus is the observed state of the rule.
type FlexibleServersFirewallRuleStatus struct {
	azurev1alpha1.ResourceStatus `json:",inline"`
}

// FlexibleServersFirewallRule allows a range of IPv4 addresses to connect to a
// PostgreSQL flexible server with public access
// (Microsoft.DBforPostgreSQL/flexibleServers/firewallRules). Tags are not
// supported by Azure on this type.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=aztenant;azure
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.azureName) || size(self.metadata.name) <= 128",message="metadata.name is longer than a firewall rule name may be (128): set spec.azureName"
// +kubebuilder:validation:XValidation:rule="(has(self.spec.azureName) ? self.spec.azureName : self.metadata.name) == (has(oldSelf.spec.azureName) ? oldSelf.spec.azureName : oldSelf.metadata.name)",message="azureName is immutable: it names the resource in Azure"
type FlexibleServersFirewallRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FlexibleServersFirewallRuleSpec   `json:"spec"`
	Status FlexibleServersFirewallRuleStatus `json:"status,omitempty"`
}

// FlexibleServersFirewallRuleList is a list of FlexibleServersFirewallRule.
//
// +kubebuilder:object:root=true
type FlexibleServersFirewallRuleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FlexibleServersFirewallRule `json:"items"`
}

var _ azurev1alpha1.Resource = &FlexibleServersFirewallRule{}

// AzureName is spec.azureName, defaulting to metadata.name.
func (x *FlexibleServersFirewallRule) AzureName() string {
	if x.Spec.AzureName != "" {
		return x.Spec.AzureName
	}
	return x.Name
}

// Owner is spec.owner: the server.
func (x *FlexibleServersFirewallRule) Owner() *azurev1alpha1.OwnerReference { return x.Spec.Owner }

// OwnerGroupKind is FlexibleServer: the kind spec.owner.name refers to.
func (x *FlexibleServersFirewallRule) OwnerGroupKind() schema.GroupKind {
	return FlexibleServerGroupKind
}

// AzureStatus is the common part of the status.
func (x *FlexibleServersFirewallRule) AzureStatus() *azurev1alpha1.ResourceStatus {
	return &x.Status.ResourceStatus
}

// Expressions are the CEL exports of spec.operatorSpec, or nil.
func (x *FlexibleServersFirewallRule) Expressions() *azurev1alpha1.OperatorExpressions {
	if x.Spec.OperatorSpec == nil {
		return nil
	}
	return &x.Spec.OperatorSpec.OperatorExpressions
}
