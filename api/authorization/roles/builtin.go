package roles

import "strings"

// builtin is the table. Each entry is copied from the JSON definition on
// Microsoft Learn's "Azure built-in roles for <category>" page named above
// its group (articles/role-based-access-control/built-in-roles/<category>.md
// in MicrosoftDocs/azure-docs), checked in 2026: the GUID from "name", the
// permissions in full. Conditions (ABAC) are left out: Privileged ignores
// them, which can only make it stricter.
var builtin = []Definition{
	// "Azure built-in roles for Privileged"
	{
		Name: "Owner", ID: "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
		Description: "Grants full access to manage all resources, including the ability to assign roles in Azure RBAC.",
		Permissions: []Permission{{Actions: []string{"*"}}},
	},
	{
		Name: "Contributor", ID: "b24988ac-6180-42a0-ab88-20f7382dd24c",
		Description: "Grants full access to manage all resources, but does not allow you to assign roles in Azure RBAC, manage assignments in Azure Blueprints, or share image galleries.",
		Permissions: []Permission{{
			Actions: []string{"*"},
			NotActions: []string{
				"Microsoft.Authorization/*/Delete",
				"Microsoft.Authorization/*/Write",
				"Microsoft.Authorization/elevateAccess/Action",
				"Microsoft.Blueprint/blueprintAssignments/write",
				"Microsoft.Blueprint/blueprintAssignments/delete",
				"Microsoft.Compute/galleries/share/action",
				"Microsoft.Purview/consents/write",
				"Microsoft.Purview/consents/delete",
				"Microsoft.Resources/deploymentStacks/manageDenySetting/action",
				"Microsoft.Subscription/cancel/action",
				"Microsoft.Subscription/enable/action",
			},
		}},
	},
	{
		Name: "Role Based Access Control Administrator", ID: "f58310d9-a9f6-439a-9e8d-f62e7b41a168",
		Description: "Manage access to Azure resources by assigning roles using Azure RBAC. This role does not allow you to manage access using other ways, such as Azure Policy.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/roleAssignments/write",
			"Microsoft.Authorization/roleAssignments/delete",
			"*/read",
			"Microsoft.Support/*",
		}}},
	},
	{
		Name: "User Access Administrator", ID: "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
		Description: "Lets you manage user access to Azure resources.",
		Permissions: []Permission{{Actions: []string{"*/read", "Microsoft.Authorization/*", "Microsoft.Support/*"}}},
	},

	// "Azure built-in roles for General"
	{
		Name: "Reader", ID: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
		Description: "View all resources, but does not allow you to make any changes.",
		Permissions: []Permission{{Actions: []string{"*/read"}}},
	},

	// "Azure built-in roles for Identity"
	{
		Name: "Managed Identity Contributor", ID: "e40ec5ca-96e0-45a2-b4ff-59039f2c2b59",
		Description: "Create, Read, Update, and Delete User Assigned Identity",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.ManagedIdentity/userAssignedIdentities/read",
			"Microsoft.ManagedIdentity/userAssignedIdentities/write",
			"Microsoft.ManagedIdentity/userAssignedIdentities/delete",
			"Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials/read",
			"Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials/write",
			"Microsoft.ManagedIdentity/userAssignedIdentities/federatedIdentityCredentials/delete",
			"Microsoft.ManagedIdentity/userAssignedIdentities/revokeTokens/action",
			"Microsoft.Authorization/*/read",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Support/*",
		}}},
	},
	{
		Name: "Managed Identity Operator", ID: "f1a07417-d97a-45cb-824c-7a7467783830",
		Description: "Read and Assign User Assigned Identity",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.ManagedIdentity/userAssignedIdentities/*/read",
			"Microsoft.ManagedIdentity/userAssignedIdentities/*/assign/action",
			"Microsoft.Authorization/*/read",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Support/*",
		}}},
	},

	// "Azure built-in roles for Security"
	{
		Name: "Key Vault Administrator", ID: "00482a5a-887f-4fb3-b363-3b7fe8e74483",
		Description: "Perform all data plane operations on a key vault and all objects in it, including certificates, keys, and secrets. Cannot manage key vault resources or manage role assignments. Only works for key vaults that use the 'Azure role-based access control' permission model.",
		Permissions: []Permission{{
			Actions:     keyVaultDataRoleActions(),
			DataActions: []string{"Microsoft.KeyVault/vaults/*"},
		}},
	},
	{
		Name: "Key Vault Contributor", ID: "f25e0fa2-a7c8-4377-a976-54943a77a395",
		Description: "Lets you manage key vaults, but not access to them.",
		Permissions: []Permission{{
			Actions: []string{
				"Microsoft.Authorization/*/read",
				"Microsoft.Insights/alertRules/*",
				"Microsoft.KeyVault/*",
				"Microsoft.Resources/deployments/*",
				"Microsoft.Resources/subscriptions/resourceGroups/read",
				"Microsoft.Support/*",
			},
			NotActions: []string{
				"Microsoft.KeyVault/locations/deletedVaults/purge/action",
				"Microsoft.KeyVault/hsmPools/*",
				"Microsoft.KeyVault/managedHsms/*",
			},
		}},
	},
	{
		Name: "Key Vault Data Access Administrator", ID: "8b54135c-b56d-4d72-a534-26097cfdc8d8",
		Description: "Manage access to Azure Key Vault by adding or removing role assignments for the Key Vault Administrator, Key Vault Certificates Officer, Key Vault Crypto Officer, Key Vault Crypto Service Encryption User, Key Vault Crypto User, Key Vault Reader, Key Vault Secrets Officer, or Key Vault Secrets User roles. Includes an ABAC condition to constrain role assignments.",
		// The published definition also carries an ABAC condition limiting
		// the assignments to the Key Vault data roles (Key Vault
		// Administrator among them).
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/roleAssignments/write",
			"Microsoft.Authorization/roleAssignments/delete",
			"Microsoft.Authorization/*/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.Resources/subscriptions/read",
			"Microsoft.Management/managementGroups/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Support/*",
			"Microsoft.KeyVault/vaults/*/read",
		}}},
	},
	{
		Name: "Key Vault Secrets Officer", ID: "b86a8fe4-44ce-4948-aee5-eccb2c155cd7",
		Description: "Perform any action on the secrets of a key vault, except manage permissions. Only works for key vaults that use the 'Azure role-based access control' permission model.",
		Permissions: []Permission{{
			Actions:     keyVaultDataRoleActions(),
			DataActions: []string{"Microsoft.KeyVault/vaults/secrets/*"},
		}},
	},
	{
		Name: "Key Vault Secrets User", ID: "4633458b-17de-408a-b874-0445c86b69e6",
		Description: "Read secret contents. Only works for key vaults that use the 'Azure role-based access control' permission model.",
		Permissions: []Permission{{DataActions: []string{
			"Microsoft.KeyVault/vaults/secrets/getSecret/action",
			"Microsoft.KeyVault/vaults/secrets/readMetadata/action",
		}}},
	},

	// "Azure built-in roles for Containers"
	{
		Name: "AcrPull", ID: "7f951dda-4ed3-4680-a7ca-43fe172d538d",
		Description: "acr pull",
		Permissions: []Permission{{Actions: []string{"Microsoft.ContainerRegistry/registries/pull/read"}}},
	},
	{
		Name: "Azure Kubernetes Service Cluster Admin Role", ID: "0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8",
		Description: "List cluster admin credential action.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.ContainerService/managedClusters/listClusterAdminCredential/action",
			"Microsoft.ContainerService/managedClusters/accessProfiles/listCredential/action",
			"Microsoft.ContainerService/managedClusters/read",
			"Microsoft.ContainerService/managedClusters/runcommand/action",
		}}},
	},
	{
		Name: "Azure Kubernetes Service Cluster User Role", ID: "4abbcc35-e782-43d8-92c5-2d3f1bd2253f",
		Description: "List cluster user credential action.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.ContainerService/managedClusters/listClusterUserCredential/action",
			"Microsoft.ContainerService/managedClusters/read",
		}}},
	},
	{
		Name: "Azure Kubernetes Service Contributor Role", ID: "ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8",
		Description: "Grants access to read and write Azure Kubernetes Service clusters",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/*/read",
			"Microsoft.ContainerService/locations/*",
			"Microsoft.ContainerService/managedClusters/*",
			"Microsoft.ContainerService/managedclustersnapshots/*",
			"Microsoft.ContainerService/snapshots/*",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
		}}},
	},
	{
		Name: "Azure Kubernetes Service RBAC Admin", ID: "3498e952-d568-435e-9b2c-8d77e338d7f7",
		Description: "Lets you manage all resources under cluster/namespace, except update or delete resource quotas and namespaces.",
		Permissions: []Permission{{
			Actions:     aksRBACActions("Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"),
			DataActions: []string{"Microsoft.ContainerService/managedClusters/*"},
			NotDataActions: []string{
				"Microsoft.ContainerService/managedClusters/resourcequotas/write",
				"Microsoft.ContainerService/managedClusters/resourcequotas/delete",
				"Microsoft.ContainerService/managedClusters/namespaces/write",
				"Microsoft.ContainerService/managedClusters/namespaces/delete",
			},
		}},
	},
	{
		Name: "Azure Kubernetes Service RBAC Cluster Admin", ID: "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b",
		Description: "Lets you manage all resources in the cluster.",
		Permissions: []Permission{{
			Actions:     aksRBACActions("Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"),
			DataActions: []string{"Microsoft.ContainerService/managedClusters/*"},
		}},
	},
	{
		Name: "Azure Kubernetes Service RBAC Reader", ID: "7f6c6a51-bcf8-42ba-9220-52d62157d7db",
		Description: "Allows read-only access to see most objects in a namespace. It does not allow viewing roles or role bindings. This role does not allow viewing Secrets, since reading the contents of Secrets enables access to ServiceAccount credentials in the namespace, which would allow API access as any ServiceAccount in the namespace (a form of privilege escalation). Applying this role at cluster scope will give access across all namespaces.",
		Permissions: []Permission{{
			Actions: aksRBACActions(),
			DataActions: managedClusters(
				"apps/controllerrevisions/read",
				"apps/daemonsets/read",
				"apps/deployments/read",
				"apps/replicasets/read",
				"apps/statefulsets/read",
				"autoscaling/horizontalpodautoscalers/read",
				"batch/cronjobs/read",
				"batch/jobs/read",
				"configmaps/read",
				"discovery.k8s.io/endpointslices/read",
				"endpoints/read",
				"events.k8s.io/events/read",
				"events/read",
				"extensions/daemonsets/read",
				"extensions/deployments/read",
				"extensions/ingresses/read",
				"extensions/networkpolicies/read",
				"extensions/replicasets/read",
				"limitranges/read",
				"metrics.k8s.io/pods/read",
				"metrics.k8s.io/nodes/read",
				"namespaces/read",
				"networking.k8s.io/ingresses/read",
				"networking.k8s.io/networkpolicies/read",
				"persistentvolumeclaims/read",
				"pods/read",
				"policy/poddisruptionbudgets/read",
				"replicationcontrollers/read",
				"resourcequotas/read",
				"serviceaccounts/read",
				"services/read",
			),
		}},
	},
	{
		Name: "Azure Kubernetes Service RBAC Writer", ID: "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb",
		Description: "Allows read/write access to most objects in a namespace.This role does not allow viewing or modifying roles or role bindings. However, this role allows accessing Secrets and running Pods as any ServiceAccount in the namespace, so it can be used to gain the API access levels of any ServiceAccount in the namespace. Applying this role at cluster scope will give access across all namespaces.",
		Permissions: []Permission{{
			Actions: aksRBACActions(),
			DataActions: managedClusters(
				"apps/controllerrevisions/read",
				"apps/daemonsets/*",
				"apps/deployments/*",
				"apps/replicasets/*",
				"apps/statefulsets/*",
				"autoscaling/horizontalpodautoscalers/*",
				"batch/cronjobs/*",
				"coordination.k8s.io/leases/read",
				"coordination.k8s.io/leases/write",
				"coordination.k8s.io/leases/delete",
				"discovery.k8s.io/endpointslices/read",
				"batch/jobs/*",
				"configmaps/*",
				"endpoints/*",
				"events.k8s.io/events/read",
				"events/*",
				"extensions/daemonsets/*",
				"extensions/deployments/*",
				"extensions/ingresses/*",
				"extensions/networkpolicies/*",
				"extensions/replicasets/*",
				"limitranges/read",
				"metrics.k8s.io/pods/read",
				"metrics.k8s.io/nodes/read",
				"namespaces/read",
				"networking.k8s.io/ingresses/*",
				"networking.k8s.io/networkpolicies/*",
				"persistentvolumeclaims/*",
				"pods/*",
				"policy/poddisruptionbudgets/*",
				"replicationcontrollers/*",
				"resourcequotas/read",
				"secrets/*",
				"serviceaccounts/*",
				"services/*",
			),
		}},
	},

	// "Azure built-in roles for Compute"
	{
		Name: "Virtual Machine Contributor", ID: "9980e02c-c2be-4d73-94e8-173b1dc7cf3c",
		Description: "Lets you manage virtual machines, but not access to them, and not the virtual network or storage account they're connected to.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/*/read",
			"Microsoft.Compute/availabilitySets/*",
			"Microsoft.Compute/locations/*",
			"Microsoft.Compute/virtualMachines/*",
			"Microsoft.Compute/virtualMachineScaleSets/*",
			"Microsoft.Compute/cloudServices/*",
			"Microsoft.Compute/disks/write",
			"Microsoft.Compute/disks/read",
			"Microsoft.Compute/disks/delete",
			"Microsoft.Compute/hostgroups/write",
			"Microsoft.Compute/hostgroups/hosts/write",
			"Microsoft.DevTestLab/schedules/*",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Network/applicationGateways/backendAddressPools/join/action",
			"Microsoft.Network/loadBalancers/backendAddressPools/join/action",
			"Microsoft.Network/loadBalancers/inboundNatPools/join/action",
			"Microsoft.Network/loadBalancers/inboundNatRules/join/action",
			"Microsoft.Network/loadBalancers/probes/join/action",
			"Microsoft.Network/loadBalancers/read",
			"Microsoft.Network/locations/*",
			"Microsoft.Network/networkInterfaces/*",
			"Microsoft.Network/networkSecurityGroups/join/action",
			"Microsoft.Network/networkSecurityGroups/read",
			"Microsoft.Network/publicIPAddresses/join/action",
			"Microsoft.Network/publicIPAddresses/read",
			"Microsoft.Network/virtualNetworks/read",
			"Microsoft.Network/virtualNetworks/subnets/join/action",
			"Microsoft.RecoveryServices/locations/*",
			"Microsoft.RecoveryServices/Vaults/backupFabrics/backupProtectionIntent/write",
			"Microsoft.RecoveryServices/Vaults/backupFabrics/protectionContainers/protectedItems/*/read",
			"Microsoft.RecoveryServices/Vaults/backupFabrics/protectionContainers/protectedItems/read",
			"Microsoft.RecoveryServices/Vaults/backupFabrics/protectionContainers/protectedItems/write",
			"Microsoft.RecoveryServices/Vaults/backupPolicies/read",
			"Microsoft.RecoveryServices/Vaults/backupPolicies/write",
			"Microsoft.RecoveryServices/Vaults/read",
			"Microsoft.RecoveryServices/Vaults/usages/read",
			"Microsoft.RecoveryServices/Vaults/write",
			"Microsoft.ResourceHealth/availabilityStatuses/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.SerialConsole/serialPorts/connect/action",
			"Microsoft.SqlVirtualMachine/*",
			"Microsoft.Storage/storageAccounts/listKeys/action",
			"Microsoft.Storage/storageAccounts/read",
			"Microsoft.Support/*",
		}}},
	},

	// "Azure built-in roles for Storage"
	{
		Name: "Storage Account Contributor", ID: "17d1049b-9a84-46fb-8f53-869881c3d3ab",
		Description: "Lets you manage storage accounts, including accessing storage account keys which provide full access to storage account data.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/*/read",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Insights/diagnosticSettings/*",
			"Microsoft.Network/virtualNetworks/subnets/joinViaServiceEndpoint/action",
			"Microsoft.ResourceHealth/availabilityStatuses/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.Storage/storageAccounts/*",
			"Microsoft.Support/*",
		}}},
	},
	{
		Name: "Storage Blob Data Contributor", ID: "ba92f5b4-2d11-453d-a403-e96b0029c9fe",
		Description: "Allows for read, write and delete access to Azure Storage blob containers and data",
		Permissions: []Permission{{
			Actions: []string{
				"Microsoft.Storage/storageAccounts/blobServices/containers/delete",
				"Microsoft.Storage/storageAccounts/blobServices/containers/read",
				"Microsoft.Storage/storageAccounts/blobServices/containers/write",
				"Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action",
			},
			DataActions: []string{
				"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete",
				"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read",
				"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write",
				"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/move/action",
				"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/add/action",
			},
		}},
	},
	{
		Name: "Storage Blob Data Owner", ID: "b7e6dc6d-f1e8-4753-8033-0f276bb0955b",
		Description: "Allows for full access to Azure Storage blob containers and data, including assigning POSIX access control.",
		Permissions: []Permission{{
			Actions: []string{
				"Microsoft.Storage/storageAccounts/blobServices/containers/*",
				"Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action",
			},
			DataActions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/*"},
		}},
	},
	{
		Name: "Storage Blob Data Reader", ID: "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
		Description: "Allows for read access to Azure Storage blob containers and data",
		Permissions: []Permission{{
			Actions: []string{
				"Microsoft.Storage/storageAccounts/blobServices/containers/read",
				"Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action",
			},
			DataActions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"},
		}},
	},

	// "Azure built-in roles for Networking"
	{
		Name: "Network Contributor", ID: "4d97b98b-1d4f-4787-a291-c67834d212e7",
		Description: "Lets you manage networks, but not access to them.",
		Permissions: []Permission{{Actions: []string{
			"Microsoft.Authorization/*/read",
			"Microsoft.Insights/alertRules/*",
			"Microsoft.Network/*",
			"Microsoft.ResourceHealth/availabilityStatuses/read",
			"Microsoft.Resources/deployments/*",
			"Microsoft.Resources/subscriptions/resourceGroups/read",
			"Microsoft.Support/*",
		}}},
	},
}

// keyVaultDataRoleActions are the control-plane actions shared by Key Vault
// Administrator and Key Vault Secrets Officer (and the other Key Vault data
// roles), as published.
func keyVaultDataRoleActions() []string {
	return []string{
		"Microsoft.Authorization/*/read",
		"Microsoft.Insights/alertRules/*",
		"Microsoft.Resources/deployments/*",
		"Microsoft.Resources/subscriptions/resourceGroups/read",
		"Microsoft.Support/*",
		"Microsoft.KeyVault/checkNameAvailability/read",
		"Microsoft.KeyVault/deletedVaults/read",
		"Microsoft.KeyVault/locations/*/read",
		"Microsoft.KeyVault/vaults/*/read",
		"Microsoft.KeyVault/operations/read",
	}
}

// aksRBACActions are the control-plane actions shared by the Azure
// Kubernetes Service RBAC roles, as published, plus extra.
func aksRBACActions(extra ...string) []string {
	return append([]string{
		"Microsoft.Authorization/*/read",
		"Microsoft.Resources/subscriptions/operationresults/read",
		"Microsoft.Resources/subscriptions/read",
		"Microsoft.Resources/subscriptions/resourceGroups/read",
	}, extra...)
}

// managedClusters prefixes Kubernetes data actions with
// Microsoft.ContainerService/managedClusters/.
func managedClusters(actions ...string) []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = "Microsoft.ContainerService/managedClusters/" + a
	}
	return out
}

// BuiltIn returns the table: every built-in role aztenant knows, in a fixed
// order. The slices are copies; changing them changes nothing here.
func BuiltIn() []Definition {
	out := make([]Definition, len(builtin))
	for i, d := range builtin {
		out[i] = d.clone()
	}
	return out
}

// ByName finds a built-in role by its exact name, as Azure spells it.
func ByName(name string) (Definition, bool) {
	for _, d := range builtin {
		if d.Name == name {
			return d.clone(), true
		}
	}
	return Definition{}, false
}

// ByID finds a built-in role by its GUID or by a role definition ID ending in
// it (/providers/Microsoft.Authorization/roleDefinitions/<guid>, with or
// without a subscription), in any casing.
func ByID(id string) (Definition, bool) {
	g := GUIDOf(id)
	for _, d := range builtin {
		if strings.EqualFold(d.ID, g) {
			return d.clone(), true
		}
	}
	return Definition{}, false
}

// GUIDOf is the last segment of a role definition ID (the GUID), or id
// itself when it has no slash.
func GUIDOf(id string) string {
	id = strings.TrimSuffix(id, "/")
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// NameToID maps every built-in role's name to its GUID.
func NameToID() map[string]string {
	m := make(map[string]string, len(builtin))
	for _, d := range builtin {
		m[d.Name] = d.ID
	}
	return m
}
