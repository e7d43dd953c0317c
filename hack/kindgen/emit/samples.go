package emit

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// sampleValues are the values a sample manifest sets beyond what the SDK requires (which
// is filled in from the types: an enum's first value, "example" for strings), so each
// sample reads like a real use. Keys are group/Kind; "name" sets metadata.name.
var sampleValues = map[string]map[string]any{
	// The resource group the other samples name as their owner.
	"resources/ResourceGroup":       {"name": "sample-rg"},
	"network/VirtualNetwork":        {"addressSpace": map[string]any{"addressPrefixes": []any{"10.0.0.0/16"}}},
	"network/VirtualNetworksSubnet": {"addressPrefix": "10.0.1.0/24"},
	"network/NetworkSecurityGroupsSecurityRule": {"priority": 100, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
		"sourceAddressPrefix": "*", "sourcePortRange": "*", "destinationAddressPrefix": "*", "destinationPortRange": "443"},
	"network/VirtualNetworksVirtualNetworkPeering": {"allowVirtualNetworkAccess": true, "allowForwardedTraffic": false,
		"remoteVirtualNetwork": map[string]any{"reference": map[string]any{
			"armId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/hub-rg/providers/Microsoft.Network/virtualNetworks/hub-vnet"}}},
	"network/PublicIPPrefix": {"prefixLength": 30, "publicIPAddressVersion": "IPv4", "sku": map[string]any{"name": "Standard"}},
	"network/NatGateway": {"idleTimeoutInMinutes": 4, "sku": map[string]any{"name": "Standard"},
		"publicIpPrefixes": []any{map[string]any{"reference": map[string]any{"kind": "PublicIPPrefix", "name": "sample-publicipprefix"}}}},
	"network/NetworkInterface": {"enableIPForwarding": false, "ipConfigurations": []any{map[string]any{
		"name": "ipconfig1", "privateIPAllocationMethod": "Dynamic",
		"subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}}}},
	"network/PrivateEndpoint": {"customNetworkInterfaceName": "sample-pe-nic",
		"subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}},
		"privateLinkServiceConnections": []any{map[string]any{"name": "vault", "groupIds": []any{"vault"},
			"privateLinkServiceReference": map[string]any{"group": "keyvault.aztenant.io", "kind": "Vault", "name": "sample-vault-01"}}}},
	"network/PrivateEndpointsPrivateDnsZoneGroup": {"privateDnsZoneConfigs": []any{map[string]any{"name": "vault",
		"privateDnsZoneReference": map[string]any{"kind": "PrivateDnsZone", "name": "sample.internal"}}}},
	"network/PublicIPAddress":  {"publicIPAllocationMethod": "Static", "sku": map[string]any{"name": "Standard"}},
	"network/RouteTable":       {"disableBgpRoutePropagation": false},
	"network/RouteTablesRoute": {"addressPrefix": "10.1.0.0/16", "nextHopType": "VnetLocal"},
	"network/PrivateDnsZone":   {"name": "sample.internal", "location": "global"},
	"network/PrivateDnsZonesVirtualNetworkLink": {"location": "global", "registrationEnabled": false,
		"virtualNetwork": map[string]any{"reference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"}}},
	"network/PrivateDnsZonesARecord":     {"name": "www", "ttl": 300, "aRecords": []any{map[string]any{"ipv4Address": "10.0.1.4"}}},
	"network/PrivateDnsZonesAAAARecord":  {"name": "www", "ttl": 300, "aaaaRecords": []any{map[string]any{"ipv6Address": "fd00::4"}}},
	"network/PrivateDnsZonesCNAMERecord": {"name": "app", "ttl": 300, "cnameRecord": map[string]any{"cname": "www.sample.internal"}},
	"network/PrivateDnsZonesMXRecord":    {"name": "mail", "ttl": 300, "mxRecords": []any{map[string]any{"preference": 10, "exchange": "mx.sample.internal"}}},
	"network/PrivateDnsZonesPTRRecord":   {"name": "4", "ttl": 300, "ptrRecords": []any{map[string]any{"ptrdname": "www.sample.internal"}}},
	"network/PrivateDnsZonesSRVRecord": {"name": "sample-srv", "azureName": "_sip._tcp", "ttl": 300,
		"srvRecords": []any{map[string]any{"priority": 10, "weight": 5, "port": 5060, "target": "sip.sample.internal"}}},
	"network/PrivateDnsZonesTXTRecord": {"name": "txt", "ttl": 300, "txtRecords": []any{map[string]any{"value": []any{"v=spf1 -all"}}}},
	"network/DnsZone":                  {"name": "sample.example.com", "location": "global"},
	"network/DnsZonesARecord":          {"name": "www", "TTL": 300, "ARecords": []any{map[string]any{"ipv4Address": "203.0.113.10"}}},
	"network/DnsZonesAAAARecord":       {"name": "www", "TTL": 300, "AAAARecords": []any{map[string]any{"ipv6Address": "2001:db8::10"}}},
	"network/DnsZonesCAARecord": {"name": "caa", "TTL": 3600,
		"caaRecords": []any{map[string]any{"flags": 0, "tag": "issue", "value": "letsencrypt.org"}}},
	"network/DnsZonesCNAMERecord": {"name": "app", "TTL": 300, "CNAMERecord": map[string]any{"cname": "www.sample.example.com"}},
	"network/DnsZonesMXRecord":    {"name": "mail", "TTL": 3600, "MXRecords": []any{map[string]any{"preference": 10, "exchange": "mx.sample.example.com"}}},
	"network/DnsZonesNSRecord":    {"name": "team", "TTL": 3600, "NSRecords": []any{map[string]any{"nsdname": "ns1.team.example.net"}}},
	"network/DnsZonesPTRRecord":   {"name": "10", "TTL": 300, "PTRRecords": []any{map[string]any{"ptrdname": "www.sample.example.com"}}},
	"network/DnsZonesSRVRecord": {"name": "sample-srv", "azureName": "_sip._tcp", "TTL": 300,
		"SRVRecords": []any{map[string]any{"priority": 10, "weight": 5, "port": 5060, "target": "sip.sample.example.com"}}},
	"network/DnsZonesTXTRecord": {"name": "txt", "TTL": 300, "TXTRecords": []any{map[string]any{"value": []any{"v=spf1 -all"}}}},
	"keyvault/Vault": {"name": "sample-vault-01", "tenantId": "00000000-0000-0000-0000-000000000000",
		"sku": map[string]any{"family": "A", "name": "standard"}, "enableRbacAuthorization": true},
	"servicebus/Namespace":                    {"name": "sample-sb-namespace", "sku": map[string]any{"name": "Standard", "tier": "Standard"}},
	"servicebus/NamespacesQueue":              {"maxDeliveryCount": 10},
	"servicebus/NamespacesTopic":              {"enablePartitioning": false},
	"servicebus/NamespacesTopicsSubscription": {"maxDeliveryCount": 10, "lockDuration": "PT1M"},
	"servicebus/NamespacesTopicsSubscriptionsRule": {"filterType": "SqlFilter",
		"sqlFilter": map[string]any{"sqlExpression": "priority = 'high'"}},
	"eventhub/NamespacesEventhubsConsumerGroup": {"userMetadata": "analytics"},
	"eventhub/Namespace":                        {"name": "sample-eh-namespace", "sku": map[string]any{"name": "Standard", "tier": "Standard", "capacity": 1}},
	"eventhub/NamespacesEventhub":               {"partitionCount": 2},
	"operationalinsights/Workspace":             {"retentionInDays": 30, "sku": map[string]any{"name": "PerGB2018"}},
	"appconfiguration/ConfigurationStore": {"name": "sample-appconfig-01", "sku": map[string]any{"name": "standard"},
		"disableLocalAuth": true, "softDeleteRetentionInDays": 7},
	"insights/Component": {"kind": "web", "Application_Type": "web", "IngestionMode": "LogAnalytics", "RetentionInDays": 90,
		"WorkspaceResourceReference": map[string]any{"group": "operationalinsights.aztenant.io", "kind": "Workspace", "name": "sample-workspace"}},
	"sql/Server": {"name": "sample-sql-01", "administratorLogin": "sqladmin", "administratorLoginPassword": adminPassword,
		"version": "12.0", "minimalTlsVersion": "1.2", "publicNetworkAccess": "Disabled"},
	"sql/ServersDatabase":     {"collation": "SQL_Latin1_General_CP1_CI_AS", "sku": map[string]any{"name": "Basic", "tier": "Basic"}},
	"sql/ServersFirewallRule": {"startIpAddress": "10.0.0.1", "endIpAddress": "10.0.0.1"},
	"sql/ServersElasticPool": {"sku": map[string]any{"name": "StandardPool", "tier": "Standard", "capacity": 50},
		"perDatabaseSettings": map[string]any{"minCapacity": 0, "maxCapacity": 50}, "zoneRedundant": false},
	"sql/ServersFailoverGroup": {"readWriteEndpoint": map[string]any{"failoverPolicy": "Automatic", "failoverWithDataLossGracePeriodMinutes": 60},
		"partnerServers":      []any{map[string]any{"reference": map[string]any{"armId": sampleSub + "/resourceGroups/dr-rg/providers/Microsoft.Sql/servers/sample-sql-dr"}}},
		"databasesReferences": []any{map[string]any{"kind": "ServersDatabase", "name": "sample-serversdatabase"}}},
	"sql/ServersVirtualNetworkRule": {"ignoreMissingVnetServiceEndpoint": true,
		"virtualNetworkSubnetReference": map[string]any{"group": "network.aztenant.io", "kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}},
	"sql/ServersAdministrator": {"administratorType": "ActiveDirectory", "login": "sql-admins",
		"sid": "9f8e7d6c-5b4a-4321-9876-fedcba987654", "tenantId": "00000000-0000-0000-0000-000000000000"},
	"sql/ServersAzureADOnlyAuthentication":                {"azureADOnlyAuthentication": false},
	"sql/ServersConnectionPolicy":                         {"connectionType": "Redirect"},
	"sql/ServersSecurityAlertPolicy":                      {"state": "Enabled", "emailAccountAdmins": true, "retentionDays": 30},
	"sql/ServersAdvancedThreatProtectionSetting":          {"state": "Enabled"},
	"sql/ServersDatabasesBackupShortTermRetentionPolicy":  {"retentionDays": 14, "diffBackupIntervalInHours": 24},
	"sql/ServersDatabasesTransparentDataEncryption":       {"state": "Enabled"},
	"sql/ServersDatabasesSecurityAlertPolicy":             {"state": "Enabled", "emailAccountAdmins": true, "retentionDays": 30},
	"sql/ServersDatabasesAdvancedThreatProtectionSetting": {"state": "Enabled"},
	"dbformysql/FlexibleServer": {"name": "sample-mysql-01", "administratorLogin": "mysqladmin", "administratorLoginPassword": adminPassword,
		"version": "8.0.21", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"}, "storage": map[string]any{"storageSizeGB": 20}},
	"dbformysql/FlexibleServersDatabase":          {"charset": "utf8mb4", "collation": "utf8mb4_0900_ai_ci"},
	"dbformysql/FlexibleServersFirewallRule":      {"startIpAddress": "10.0.0.1", "endIpAddress": "10.0.0.1"},
	"dbforpostgresql/FlexibleServersDatabase":     {"charset": "UTF8", "collation": "en_US.utf8"},
	"dbforpostgresql/FlexibleServersFirewallRule": {"startIpAddress": "10.0.0.1", "endIpAddress": "10.0.0.1"},
	"documentdb/DatabaseAccount": {"name": "sample-cosmos-01", "kind": "GlobalDocumentDB", "databaseAccountOfferType": "Standard",
		"locations":         []any{map[string]any{"locationName": "westeurope", "failoverPriority": 0}},
		"consistencyPolicy": map[string]any{"defaultConsistencyLevel": "Session"}, "disableLocalAuth": false,
		// Its keys (listKeys) into a Secret, by a CEL export.
		"operatorSpec": map[string]any{"secretExpressions": []any{map[string]any{
			"name": "sample-cosmos-keys", "key": "primaryKey", "value": "secret.primaryMasterKey"}}}},
	"documentdb/SqlDatabase": {"name": "sample-sqldatabase", "resource": map[string]any{"id": "sample-sqldatabase"},
		"options": map[string]any{"throughput": 400}},
	"documentdb/SqlDatabaseContainer": {"name": "sample-container", "resource": map[string]any{"id": "sample-container",
		"partitionKey": map[string]any{"paths": []any{"/tenantId"}, "kind": "Hash"}, "defaultTtl": -1}},
	"documentdb/SqlDatabaseContainerStoredProcedure": {"name": "sample-sproc", "resource": map[string]any{"id": "sample-sproc",
		"body": "function () { getContext().getResponse().setBody('ok'); }"}},
	"documentdb/SqlDatabaseContainerTrigger": {"name": "sample-trigger", "resource": map[string]any{"id": "sample-trigger",
		"body": "function () { }", "triggerType": "Pre", "triggerOperation": "Create"}},
	"documentdb/SqlDatabaseContainerUserDefinedFunction": {"name": "sample-udf", "resource": map[string]any{"id": "sample-udf",
		"body": "function tax(income) { return income * 0.1; }"}},
	// Cosmos DB names role definitions and assignments by GUID.
	"documentdb/SqlRoleDefinition": {"name": "5f2a3c1e-8d4b-4e6f-9a7b-1c2d3e4f5a6b", "roleName": "sample-reader", "type": "CustomRole",
		"assignableScopes": []any{sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.DocumentDB/databaseAccounts/sample-cosmos-01"},
		"permissions":      []any{map[string]any{"dataActions": []any{"Microsoft.DocumentDB/databaseAccounts/readMetadata"}}}},
	"documentdb/SqlRoleAssignment": {"name": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "principalId": "11111111-2222-3333-4444-555555555555",
		"roleDefinitionReference": map[string]any{"kind": "SqlRoleDefinition", "name": "5f2a3c1e-8d4b-4e6f-9a7b-1c2d3e4f5a6b"},
		"scope":                   sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.DocumentDB/databaseAccounts/sample-cosmos-01"},
	"documentdb/MongodbDatabase": {"name": "sample-mongodb", "resource": map[string]any{"id": "sample-mongodb"}, "options": map[string]any{"throughput": 400}},
	"documentdb/MongodbDatabaseCollection": {"name": "sample-collection", "resource": map[string]any{"id": "sample-collection",
		"shardKey": map[string]any{"tenantId": "Hash"}}},
	"documentdb/CassandraKeyspace": {"name": "sample-keyspace", "resource": map[string]any{"id": "sample-keyspace"}, "options": map[string]any{"throughput": 400}},
	"documentdb/CassandraKeyspaceTable": {"name": "sample-table", "resource": map[string]any{"id": "sample-table", "defaultTtl": 0,
		"schema": map[string]any{"columns": []any{map[string]any{"name": "id", "type": "uuid"}, map[string]any{"name": "body", "type": "text"}},
			"partitionKeys": []any{map[string]any{"name": "id"}}}}},
	"documentdb/GremlinDatabase": {"name": "sample-gremlin", "resource": map[string]any{"id": "sample-gremlin"}, "options": map[string]any{"throughput": 400}},
	"documentdb/GremlinDatabaseGraph": {"name": "sample-graph", "resource": map[string]any{"id": "sample-graph",
		"partitionKey": map[string]any{"paths": []any{"/tenantId"}, "kind": "Hash"}}},
	"documentdb/DatabaseAccountsTable": {"name": "samplecosmostable", "resource": map[string]any{"id": "samplecosmostable"}, "options": map[string]any{"throughput": 400}},
	"storage/StorageAccount":           {"name": "samplestorage01", "kind": "StorageV2"},
	"storage/StorageAccountsBlobService": {"isVersioningEnabled": true,
		"deleteRetentionPolicy": map[string]any{"enabled": true, "days": 7}},
	"storage/StorageAccountsQueueService":       {"cors": sampleCORS},
	"storage/StorageAccountsQueueServicesQueue": {"name": "sample-queue", "metadata": map[string]any{"team": "sample"}},
	"storage/StorageAccountsTableService":       {"cors": sampleCORS},
	"storage/StorageAccountsTableServicesTable": {"name": "sampletable",
		"signedIdentifiers": []any{map[string]any{"id": "readers", "accessPolicy": map[string]any{"permission": "r"}}}},
	"storage/StorageAccountsFileService":       {"shareDeleteRetentionPolicy": map[string]any{"enabled": true, "days": 7}},
	"storage/StorageAccountsFileServicesShare": {"name": "sample-share", "shareQuota": 100, "accessTier": "Hot"},
	"storage/StorageAccountsManagementPolicy": {"name": "samplestorage01-lifecycle", "policy": map[string]any{"rules": []any{map[string]any{
		"name": "expire-logs", "type": "Lifecycle", "enabled": true, "definition": map[string]any{
			"actions": map[string]any{"baseBlob": map[string]any{"delete": map[string]any{"daysAfterModificationGreaterThan": 30}}},
			"filters": map[string]any{"blobTypes": []any{"blockBlob"}, "prefixMatch": []any{"logs/"}}}}}}},
	// A fixed GUID as its name (a derived one would differ per namespace), a principal the
	// lifecycle test replaces with the namespace's own, a role that is not privileged, and
	// a description that the portal may change.
	"authorization/RoleAssignment": {"azureName": "5a0c0d6e-7f80-4a91-b2c3-d4e5f6a7b8c9", "principalId": "11111111-2222-3333-4444-555555555555",
		"principalType": "ServicePrincipal", "roleDefinitionReference": map[string]any{"wellKnownName": "Reader"},
		"description": "Reads the sample resource group."},
	"cache/Redis": {"name": "sample-redis"},
	"containerservice/ManagedCluster": {"name": "sample-aks", "dnsPrefix": "sample-aks",
		"agentPoolProfiles": []any{map[string]any{"name": "system", "mode": "System", "count": 1, "vmSize": "Standard_D2s_v5"}}},
	"dbforpostgresql/FlexibleServer": {"name": "sample-postgres", "version": "16", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"},
		"administratorLogin": "pgadmin", "administratorLoginPassword": adminPassword},
	"managedidentity/UserAssignedIdentity": {"name": SampleIdentity},
	"managedidentity/FederatedIdentityCredential": {"issuer": "https://oidc.example.com/sample-cluster",
		"subject": "system:serviceaccount:sample:sample-app", "audiences": []any{"api://AzureADTokenExchange"}},
	"containerservice/ManagedClustersAgentPool": {"name": "user1", "count": 2, "vmSize": "Standard_D4s_v5", "mode": "User", "osType": "Linux"},
	"cache/RedisFirewallRule":                   {"startIP": "10.0.0.1", "endIP": "10.0.0.10"},
	// It runs as a UserAssignedIdentity of the namespace (the lifecycle test creates it).
	// --- networking, second wave ---
	"network/LoadBalancer": {"sku": map[string]any{"name": "Standard", "tier": "Regional"}, "frontendIPConfigurations": []any{map[string]any{
		"name": "frontend", "privateIPAllocationMethod": "Dynamic", "subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}}}},
	"network/LoadBalancersInboundNatRule": {"protocol": "Tcp", "frontendPort": 50022, "backendPort": 22, "enableFloatingIP": false,
		"frontendIPConfiguration": map[string]any{"reference": map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/loadBalancers/sample-loadbalancer/frontendIPConfigurations/frontend"}}},
	"network/WebApplicationFirewallPolicy": {"managedRules": map[string]any{"managedRuleSets": []any{map[string]any{"ruleSetType": "OWASP", "ruleSetVersion": "3.2"}}},
		"policySettings": map[string]any{"state": "Enabled", "mode": "Prevention", "requestBodyCheck": true}},
	"network/AzureFirewall":  {"threatIntelMode": "Alert", "sku": map[string]any{"name": "AZFW_VNet", "tier": "Standard"}},
	"network/FirewallPolicy": {"threatIntelMode": "Alert", "sku": map[string]any{"tier": "Standard"}},
	"network/FirewallPoliciesRuleCollectionGroup": {"priority": 200, "ruleCollections": []any{map[string]any{
		"ruleCollectionType": "FirewallPolicyFilterRuleCollection", "name": "allow-web", "priority": 210, "action": map[string]any{"type": "Allow"},
		"rules": []any{map[string]any{"ruleType": "NetworkRule", "name": "https", "ipProtocols": []any{"TCP"},
			"sourceAddresses": []any{"10.0.0.0/16"}, "destinationAddresses": []any{"*"}, "destinationPorts": []any{"443"}}}}}},
	"network/PrivateLinkService": {"enableProxyProtocol": false, "loadBalancerFrontendIpConfigurations": []any{map[string]any{"reference": map[string]any{
		"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/loadBalancers/sample-loadbalancer/frontendIPConfigurations/frontend"}}},
		"ipConfigurations": []any{map[string]any{"name": "nat", "primary": true, "privateIPAllocationMethod": "Dynamic", "subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}}}},
	"network/BastionHost": {"sku": map[string]any{"name": "Standard"}, "scaleUnits": 2, "ipConfigurations": []any{map[string]any{
		"name": "bastion", "subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}, "publicIPAddress": map[string]any{"reference": map[string]any{"kind": "PublicIPAddress", "name": "sample-publicipaddress"}}}}},
	"network/NetworkWatchersFlowLog": {"enabled": true, "retentionPolicy": map[string]any{"days": 7, "enabled": true},
		"format":                  map[string]any{"type": "JSON", "version": 2},
		"targetResourceReference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"},
		"storageReference":        map[string]any{"group": "storage.aztenant.io", "kind": "StorageAccount", "name": "samplestorage01"}},
	"network/IpGroup":                     {"ipAddresses": []any{"10.0.0.0/24", "10.1.0.0/24"}},
	"network/LocalNetworkGateway":         {"gatewayIpAddress": "203.0.113.1", "localNetworkAddressSpace": map[string]any{"addressPrefixes": []any{"192.168.0.0/16"}}},
	"network/RouteFiltersRouteFilterRule": {"access": "Allow", "routeFilterRuleType": "Community", "communities": []any{"12076:5010"}},
	"network/ServiceEndpointPoliciesServiceEndpointPolicyDefinition": {"description": "the team's storage only", "service": "Microsoft.Storage",
		"serviceResources": []any{sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Storage/storageAccounts/samplestorage01"}},
	// DNS resolvers (Azure wants the endpoints' subnets delegated to Microsoft.Network/dnsResolvers).
	"network/DnsResolver":                  {"virtualNetwork": map[string]any{"reference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"}}},
	"network/DnsResolversInboundEndpoint":  {"ipConfigurations": []any{map[string]any{"subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}, "privateIpAllocationMethod": "Dynamic"}}},
	"network/DnsResolversOutboundEndpoint": {"subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}},
	"network/DnsForwardingRuleset": {"dnsResolverOutboundEndpoints": []any{map[string]any{"reference": map[string]any{
		"kind": "DnsResolversOutboundEndpoint", "name": "sample-dnsresolversoutboundendpoint"}}}},
	"network/DnsForwardingRuleSetsForwardingRule": {"domainName": "corp.example.com.", "forwardingRuleState": "Enabled",
		"targetDnsServers": []any{map[string]any{"ipAddress": "10.10.0.4", "port": 53}}},
	"network/DnsForwardingRuleSetsVirtualNetworkLink": {"virtualNetwork": map[string]any{"reference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"}}, "metadata": map[string]any{"team": "sample"}},
	"network/DnsResolverDomainList":                   {"domains": []any{"malicious.example.com."}},
	"network/DnsResolverPoliciesDnsSecurityRule": {"priority": 100, "dnsSecurityRuleState": "Enabled",
		"action":                 map[string]any{"actionType": "Block"},
		"dnsResolverDomainLists": []any{map[string]any{"reference": map[string]any{"kind": "DnsResolverDomainList", "name": "sample-dnsresolverdomainlist"}}}},
	"network/DnsResolverPoliciesVirtualNetworkLink": {"virtualNetwork": map[string]any{"reference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"}}},
	// --- Event Grid ---
	"eventgrid/Topic":  {"inputSchema": "EventGridSchema", "publicNetworkAccess": "Enabled", "disableLocalAuth": true},
	"eventgrid/Domain": {"inputSchema": "EventGridSchema", "publicNetworkAccess": "Enabled", "disableLocalAuth": true, "autoCreateTopicWithFirstSubscription": true},
	"eventgrid/SystemTopic": {"topicType": "Microsoft.Storage.StorageAccounts",
		"sourceReference": map[string]any{"group": "storage.aztenant.io", "kind": "StorageAccount", "name": "samplestorage01"}},
	"eventgrid/TopicsEventSubscription":        sampleEventSubscription,
	"eventgrid/DomainsEventSubscription":       sampleEventSubscription,
	"eventgrid/DomainsTopicsEventSubscription": sampleEventSubscription,
	"eventgrid/SystemTopicsEventSubscription":  sampleEventSubscription,
	// The resource group's own events (resources written) into the sample queue.
	"eventgrid/EventSubscription": {"eventDeliverySchema": "EventGridSchema",
		"destination": sampleEventSubscription["destination"],
		"filter":      map[string]any{"includedEventTypes": []any{"Microsoft.Resources.ResourceWriteSuccess"}},
		"retryPolicy": map[string]any{"maxDeliveryAttempts": 10, "eventTimeToLiveInMinutes": 1440}},
	// --- Container Apps ---
	"app/ManagedEnvironment": {"zoneRedundant": false, "workloadProfiles": []any{map[string]any{"name": "Consumption", "workloadProfileType": "Consumption"}},
		"peerAuthentication": map[string]any{"mtls": map[string]any{"enabled": true}}},
	"app/ManagedEnvironmentsStorage": {"azureFile": map[string]any{"accountName": "samplestorage01", "shareName": "sample-share", "accessMode": "ReadWrite"}},
	"app/ManagedEnvironmentsDaprComponent": {"componentType": "state.azure.blobstorage", "version": "v1", "ignoreErrors": false,
		"metadata": []any{map[string]any{"name": "accountName", "value": "samplestorage01"}}, "scopes": []any{"sample-containerapp"}},
	"app/ManagedEnvironmentsCertificate": {"certificateKeyVaultProperties": map[string]any{"identity": "system",
		"keyVaultUrl": "https://sample-vault-01.vault.azure.net/secrets/tls"}},
	"app/ManagedEnvironmentsJavaComponent": {"properties": map[string]any{"componentType": "SpringCloudConfig",
		"configurations": []any{map[string]any{"propertyName": "spring.cloud.config.server.git.uri", "value": "https://github.com/example/config"}}}},
	"app/ContainerApp": {"managedEnvironmentReference": map[string]any{"kind": "ManagedEnvironment", "name": "sample-managedenvironment"}, "workloadProfileName": "Consumption",
		"configuration": map[string]any{"activeRevisionsMode": "Single", "ingress": map[string]any{"external": true, "targetPort": 8080}},
		"template": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "mcr.microsoft.com/k8se/quickstart:latest",
			"resources": map[string]any{"cpu": 0.5, "memory": "1Gi"}}}, "scale": map[string]any{"minReplicas": 1, "maxReplicas": 3}}},
	"app/AuthConfig": {"name": "current", "platform": map[string]any{"enabled": true},
		"globalValidation": map[string]any{"unauthenticatedClientAction": "RedirectToLoginPage"}},
	"app/Job": {"environmentReference": map[string]any{"kind": "ManagedEnvironment", "name": "sample-managedenvironment"}, "workloadProfileName": "Consumption",
		"configuration": map[string]any{"triggerType": "Manual", "replicaTimeout": 1800, "replicaRetryLimit": 1,
			"manualTriggerConfig": map[string]any{"parallelism": 1, "replicaCompletionCount": 1}},
		"template": map[string]any{"containers": []any{map[string]any{"name": "job", "image": "mcr.microsoft.com/k8se/quickstart-jobs:latest",
			"resources": map[string]any{"cpu": 0.25, "memory": "0.5Gi"}}}}},
	"app/SessionPool": {"environmentReference": map[string]any{"kind": "ManagedEnvironment", "name": "sample-managedenvironment"}, "containerType": "PythonLTS", "poolManagementType": "Dynamic",
		"scaleConfiguration": map[string]any{"maxConcurrentSessions": 10}, "dynamicPoolConfiguration": map[string]any{"lifecycleConfiguration": map[string]any{
			"lifecycleType": "Timed", "cooldownPeriodInSeconds": 300}}},
	// --- App Service ---
	"web/ServerFarm": {"kind": "linux", "reserved": true, "sku": map[string]any{"name": "P1v3", "tier": "PremiumV3", "capacity": 1}, "zoneRedundant": false},
	"web/Site": {"kind": "app,linux", "httpsOnly": true, "serverFarmReference": map[string]any{"kind": "ServerFarm", "name": "sample-serverfarm"},
		"siteConfig": map[string]any{"linuxFxVersion": "NODE|20-lts", "alwaysOn": true, "minTlsVersion": "1.2", "ftpsState": "Disabled"}},
	"web/SitesSlot": {"kind": "app,linux", "httpsOnly": true, "serverFarmReference": map[string]any{"kind": "ServerFarm", "name": "sample-serverfarm"},
		"siteConfig": map[string]any{"linuxFxVersion": "NODE|20-lts", "alwaysOn": true, "minTlsVersion": "1.2", "ftpsState": "Disabled"}},
	// --- Monitor ---
	"insights/ActionGroup": {"location": "global", "enabled": true, "groupShortName": "oncall",
		"emailReceivers": []any{map[string]any{"name": "oncall", "emailAddress": "oncall@example.com", "useCommonAlertSchema": true}}},
	"insights/MetricAlert": {"location": "global", "enabled": true, "severity": 2, "evaluationFrequency": "PT1M", "windowSize": "PT5M",
		"scopes": []any{sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Storage/storageAccounts/samplestorage01"},
		"criteria": map[string]any{"odata.type": "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria", "allOf": []any{map[string]any{
			"criterionType": "StaticThresholdCriterion", "name": "availability", "metricName": "Availability", "operator": "LessThan",
			"threshold": 99, "timeAggregation": "Average"}}}},
	"insights/ActivityLogAlert": {"location": "global", "enabled": true, "scopes": []any{sampleSub + "/resourceGroups/sample-rg"},
		"condition": map[string]any{"allOf": []any{map[string]any{"field": "category", "equals": "Administrative"}}},
		"actions":   map[string]any{"actionGroups": []any{map[string]any{"actionGroupReference": map[string]any{"kind": "ActionGroup", "name": "sample-actiongroup"}}}}},
	"insights/AutoscaleSetting": {"enabled": true, "targetResourceUriReference": map[string]any{"group": "web.aztenant.io", "kind": "ServerFarm", "name": "sample-serverfarm"},
		"profiles": []any{map[string]any{"name": "default", "capacity": map[string]any{"default": "1", "minimum": "1", "maximum": "3"},
			"rules": []any{map[string]any{"metricTrigger": map[string]any{"metricName": "CpuPercentage", "operator": "GreaterThan", "statistic": "Average",
				"threshold": 70, "timeAggregation": "Average", "timeGrain": "PT1M", "timeWindow": "PT10M",
				"metricResourceUriReference": map[string]any{"group": "web.aztenant.io", "kind": "ServerFarm", "name": "sample-serverfarm"}},
				"scaleAction": map[string]any{"cooldown": "PT5M", "direction": "Increase", "type": "ChangeCount", "value": "1"}}}}}},
	"insights/ScheduledQueryRule": {"enabled": true, "severity": 3, "evaluationFrequency": "PT5M", "windowSize": "PT5M", "kind": "LogAlert",
		"scopes": []any{sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.OperationalInsights/workspaces/sample-workspace"},
		"criteria": map[string]any{"allOf": []any{map[string]any{"query": "AzureActivity | where Level == 'Error'", "timeAggregation": "Count",
			"operator": "GreaterThan", "threshold": 0}}}},
	"insights/DataCollectionEndpoint": {"description": "the team's ingestion endpoint", "networkAcls": map[string]any{"publicNetworkAccess": "Enabled"}},
	// A key vault's audit logs and metrics sent to the team's workspace.
	"insights/DiagnosticSetting": {"owner": map[string]any{"group": "keyvault.aztenant.io", "kind": "Vault", "name": "sample-vault-01"},
		"workspaceReference": map[string]any{"group": "operationalinsights.aztenant.io", "kind": "Workspace", "name": "sample-workspace"},
		"logs":               []any{map[string]any{"categoryGroup": "audit", "enabled": true}},
		"metrics":            []any{map[string]any{"category": "AllMetrics", "enabled": true}}},
	// A virtual machine's syslog collected by the sample rule.
	"insights/DataCollectionRuleAssociation": {"owner": map[string]any{"group": "compute.aztenant.io", "kind": "VirtualMachine", "name": "sample-virtualmachine"},
		"description":                 "syslog of the sample VM",
		"dataCollectionRuleReference": map[string]any{"group": "insights.aztenant.io", "kind": "DataCollectionRule", "name": "sample-datacollectionrule"}},
	"insights/DataCollectionRule": {"description": "syslog to the team's workspace",
		"dataSources": map[string]any{"syslog": []any{map[string]any{"name": "syslog", "streams": []any{"Microsoft-Syslog"},
			"facilityNames": []any{"auth"}, "logLevels": []any{"Warning"}}}},
		"destinations": map[string]any{"logAnalytics": []any{map[string]any{"name": "workspace",
			"workspaceResourceReference": map[string]any{"group": "operationalinsights.aztenant.io", "kind": "Workspace", "name": "sample-workspace"}}}},
		"dataFlows": []any{map[string]any{"streams": []any{"Microsoft-Syslog"}, "destinations": []any{"workspace"}}}},
	"insights/PrivateLinkScope": {"location": "global", "accessModeSettings": map[string]any{"ingestionAccessMode": "PrivateOnly", "queryAccessMode": "Open"}},
	"insights/PrivateLinkScopesScopedResource": {"kind": "Resource",
		"linkedResourceReference": map[string]any{"group": "operationalinsights.aztenant.io", "kind": "Workspace", "name": "sample-workspace"}},
	// --- API Management ---
	"apimanagement/Service": {"name": "sample-apim-01", "publisherEmail": "platform@example.com", "publisherName": "Platform team",
		"sku": map[string]any{"name": "Developer", "capacity": 1}},
	"apimanagement/Api": {"displayName": "Orders", "path": "orders", "protocols": []any{"https"}, "serviceUrl": "https://orders.example.com",
		"subscriptionRequired": true, "apiVersionSetReference": map[string]any{"kind": "ApiVersionSet", "name": "sample-apiversionset"}},
	"apimanagement/ApiVersionSet": {"displayName": "Orders", "versioningScheme": "Header", "versionHeaderName": "Api-Version"},
	"apimanagement/Backend": {"protocol": "http", "url": "https://orders.example.com", "description": "the orders service",
		"tls": map[string]any{"validateCertificateChain": true, "validateCertificateName": true}},
	"apimanagement/Cache":          {"useFromLocation": "default", "description": "a Redis cache", "connectionString": adminPassword},
	"apimanagement/ServiceGateway": {"description": "the on-premises gateway", "locationData": map[string]any{"name": "on-premises"}},
	"apimanagement/Group":          {"displayName": "Partners", "description": "partner developers", "type": "custom"},
	"apimanagement/IdentityProvider": {"name": "aad", "type": "aad", "clientId": "00000000-0000-0000-0000-000000000001",
		"clientSecret": adminPassword, "allowedTenants": []any{"contoso.onmicrosoft.com"}},
	"apimanagement/Logger":     {"loggerType": "azureMonitor", "isBuffered": true, "description": "to Azure Monitor"},
	"apimanagement/NamedValue": {"displayName": "backend-host", "value": "orders.example.com", "tags": []any{"orders"}},
	"apimanagement/PolicyFragment": {"format": "xml", "description": "a CORS fragment",
		"value": "<fragment><cors><allowed-origins><origin>*</origin></allowed-origins></cors></fragment>"},
	"apimanagement/Product":      {"displayName": "Starter", "description": "five calls a minute", "subscriptionRequired": true, "approvalRequired": false, "state": "published"},
	"apimanagement/Subscription": {"displayName": "Partner A", "scope": "/apis", "state": "active", "allowTracing": false},
	"apimanagement/Tag":          {"displayName": "orders"},
	"apimanagement/User":         {"email": "dev@example.com", "firstName": "Dev", "lastName": "Eloper", "state": "active", "note": "a sample developer"},
	"apimanagement/AuthorizationServer": {"displayName": "Sample OAuth", "clientRegistrationEndpoint": "https://login.example.com/register",
		"authorizationEndpoint": "https://login.example.com/authorize", "tokenEndpoint": "https://login.example.com/token",
		"clientId": "sample-client", "grantTypes": []any{"authorizationCode"}, "authorizationMethods": []any{"GET"}},
	// --- SignalR, Web PubSub ---
	"signalrservice/SignalR": {"name": "sample-signalr-01", "kind": "SignalR", "sku": map[string]any{"name": "Standard_S1", "tier": "Standard", "capacity": 1},
		"disableLocalAuth": true, "publicNetworkAccess": "Enabled", "features": []any{map[string]any{"flag": "ServiceMode", "value": "Default"}}},
	"webpubsub/WebPubSub": {"name": "sample-webpubsub-01", "sku": map[string]any{"name": "Standard_S1", "tier": "Standard", "capacity": 1},
		"disableLocalAuth": true, "publicNetworkAccess": "Enabled"},
	"webpubsub/WebPubSubHub": {"name": "chat", "anonymousConnectPolicy": "deny", "webSocketKeepAliveIntervalInSeconds": 20,
		"eventHandlers": []any{map[string]any{"urlTemplate": "https://chat.example.com/eventhandler", "userEventPattern": "*"}}},
	// --- Cognitive Services, Search, Machine Learning ---
	"cognitiveservices/Account": {"name": "sample-openai-01", "kind": "OpenAI", "sku": map[string]any{"name": "S0"},
		"customSubDomainName": "sample-openai-01", "disableLocalAuth": true, "publicNetworkAccess": "Enabled"},
	"cognitiveservices/Deployment": {"name": "gpt-4o", "sku": map[string]any{"name": "Standard", "capacity": 10},
		"model": map[string]any{"format": "OpenAI", "name": "gpt-4o", "version": "2024-08-06"}, "versionUpgradeOption": "OnceNewDefaultVersionAvailable"},
	"cognitiveservices/AccountsCommitmentPlan": {"name": "sample-plan", "hostingModel": "Web", "planType": "TA", "autoRenew": true,
		"current": map[string]any{"tier": "T1"}},
	"search/SearchService": {"name": "sample-search-01", "sku": map[string]any{"name": "basic"}, "replicaCount": 1, "partitionCount": 1,
		"hostingMode": "default", "publicNetworkAccess": "enabled", "disableLocalAuth": true},
	"machinelearningservices/Workspace": {"name": "sample-mlworkspace", "friendlyName": "Sample ML", "kind": "Default",
		"identity":       map[string]any{"type": "SystemAssigned"},
		"storageAccount": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Storage/storageAccounts/samplestorage01",
		"keyVault":       sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.KeyVault/vaults/sample-vault-01"},
	"machinelearningservices/WorkspacesCompute": {"name": "cpu-cluster", "properties": map[string]any{"computeType": "AmlCompute",
		"properties": map[string]any{"vmSize": "STANDARD_DS3_V2", "vmPriority": "Dedicated",
			"scaleSettings": map[string]any{"minNodeCount": 0, "maxNodeCount": 2, "nodeIdleTimeBeforeScaleDown": "PT120S"}}}},
	"machinelearningservices/WorkspacesConnection": {"name": "sample-git", "properties": map[string]any{"authType": "None",
		"category": "Git", "target": "https://github.com/example/ml"}},
	// --- Compute ---
	"compute/DiskEncryptionSet": {"encryptionType": "EncryptionAtRestWithCustomerKey", "identity": map[string]any{"type": "SystemAssigned"},
		"activeKey":                         map[string]any{"keyUrl": "https://sample-vault-01.vault.azure.net/keys/disks/0123456789abcdef0123456789abcdef"},
		"rotationToLatestKeyVersionEnabled": true},
	"compute/Disk": {"sku": map[string]any{"name": "Premium_LRS"}, "diskSizeGB": 64, "creationData": map[string]any{"createOption": "Empty"},
		"networkAccessPolicy": "DenyAll", "publicNetworkAccess": "Disabled"},
	"compute/Snapshot": {"incremental": true, "sku": map[string]any{"name": "Standard_LRS"}, "creationData": map[string]any{"createOption": "Copy",
		"sourceResourceReference": map[string]any{"kind": "Disk", "name": "sample-disk"}}},
	"compute/Image": {"hyperVGeneration": "V2", "storageProfile": map[string]any{"osDisk": map[string]any{"osType": "Linux", "osState": "Generalized",
		"snapshot": map[string]any{"reference": map[string]any{"kind": "Snapshot", "name": "sample-snapshot"}}}}},
	"compute/AvailabilitySet":          {"platformFaultDomainCount": 2, "platformUpdateDomainCount": 5, "sku": map[string]any{"name": "Aligned"}},
	"compute/ProximityPlacementGroup":  {"proximityPlacementGroupType": "Standard", "intent": map[string]any{"vmSizes": []any{"Standard_D2s_v5"}}},
	"compute/CapacityReservationGroup": {"zones": []any{"1"}},
	"compute/HostGroup":                {"platformFaultDomainCount": 1, "supportAutomaticPlacement": true},
	"compute/HostGroupsHost":           {"sku": map[string]any{"name": "DSv3-Type3"}, "platformFaultDomain": 0, "autoReplaceOnFailure": true},
	"compute/SshPublicKey":             {"publicKey": sampleSSHKey},
	"compute/Gallery":                  {"description": "the team's images"},
	"compute/GalleriesImage": {"osType": "Linux", "osState": "Generalized", "hyperVGeneration": "V2",
		"identifier": map[string]any{"publisher": "sample", "offer": "web", "sku": "22.04"}},
	"compute/GalleriesApplication": {"supportedOSType": "Linux", "description": "the team's agent"},
	"compute/VirtualMachine": {"hardwareProfile": map[string]any{"vmSize": "Standard_D2s_v5"},
		"storageProfile": map[string]any{"imageReference": map[string]any{"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "latest"},
			"osDisk": map[string]any{"createOption": "FromImage", "managedDisk": map[string]any{"storageAccountType": "Premium_LRS"}}},
		"osProfile": map[string]any{"computerName": "sample-vm", "adminUsername": "azureuser", "linuxConfiguration": map[string]any{
			"disablePasswordAuthentication": true, "ssh": map[string]any{"publicKeys": []any{map[string]any{
				"path": "/home/azureuser/.ssh/authorized_keys", "keyData": sampleSSHKey}}}}},
		"networkProfile": map[string]any{"networkInterfaces": []any{map[string]any{"primary": true,
			"reference": map[string]any{"kind": "NetworkInterface", "group": "network.aztenant.io", "name": "sample-networkinterface"}}}}},
	"compute/VirtualMachinesExtension": {"name": "monitor-agent", "publisher": "Microsoft.Azure.Monitor", "type": "AzureMonitorLinuxAgent",
		"typeHandlerVersion": "1.0", "autoUpgradeMinorVersion": true, "enableAutomaticUpgrade": true},
	"compute/VirtualMachineScaleSet": {"sku": map[string]any{"name": "Standard_D2s_v5", "tier": "Standard", "capacity": 2},
		"orchestrationMode": "Uniform", "overprovision": false, "upgradePolicy": map[string]any{"mode": "Manual"},
		"virtualMachineProfile": map[string]any{
			"storageProfile": map[string]any{"imageReference": map[string]any{"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "latest"},
				"osDisk": map[string]any{"createOption": "FromImage", "managedDisk": map[string]any{"storageAccountType": "Premium_LRS"}}},
			"osProfile": map[string]any{"computerNamePrefix": "web", "adminUsername": "azureuser", "linuxConfiguration": map[string]any{
				"disablePasswordAuthentication": true, "ssh": map[string]any{"publicKeys": []any{map[string]any{
					"path": "/home/azureuser/.ssh/authorized_keys", "keyData": sampleSSHKey}}}}},
			"networkProfile": map[string]any{"networkInterfaceConfigurations": []any{map[string]any{"name": "nic", "primary": true,
				"ipConfigurations": []any{map[string]any{"name": "ipconfig", "subnet": map[string]any{"reference": map[string]any{
					"group": "network.aztenant.io", "kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}}}}}}}},
	"compute/VirtualMachineScaleSetsExtension": {"name": "health", "publisher": "Microsoft.ManagedServices", "type": "ApplicationHealthLinux",
		"typeHandlerVersion": "2.0", "autoUpgradeMinorVersion": true, "settings": map[string]any{"protocol": "http", "port": 8080, "requestPath": "/healthz"}},
	"compute/RestorePointCollection": {"source": map[string]any{"reference": map[string]any{"kind": "VirtualMachine", "name": "sample-virtualmachine"}}},
	// --- Container Registry and AKS children ---
	"containerregistry/RegistryReplication": {"name": "northeurope", "location": "northeurope", "regionEndpointEnabled": true, "zoneRedundancy": "Disabled"},
	"containerregistry/RegistriesWebhook": {"name": "samplehook", "location": "westeurope", "actions": []any{"push"}, "status": "enabled",
		"serviceUri": "https://ci.example.com/hooks/registry", "scope": "web:*"},
	"containerregistry/RegistriesScopeMap": {"name": "web-pull", "description": "pull the web repository",
		"actions": []any{"repositories/web/content/read", "repositories/web/metadata/read"}},
	"containerregistry/RegistriesToken": {"name": "ci-pull", "status": "enabled",
		"scopeMapReference": map[string]any{"kind": "RegistriesScopeMap", "name": "web-pull"}},
	"containerregistry/RegistryCacheRule": {"name": "docker-nginx", "sourceRepository": "docker.io/library/nginx", "targetRepository": "mirror/nginx"},
	// A hubless fleet, the sample cluster its member in the canary group, a strategy
	// upgrading that group first, and a run of node image upgrades by it (created
	// NotStarted: Azure starts a run only on its start action).
	"containerservice/FleetsMember": {"clusterResourceReference": map[string]any{"group": "containerservice.aztenant.io", "kind": "ManagedCluster", "name": "sample-aks"},
		"group": "canary"},
	"containerservice/FleetsUpdateStrategy": {"strategy": map[string]any{"stages": []any{map[string]any{"name": "canary",
		"groups": []any{map[string]any{"name": "canary"}}, "afterStageWaitInSeconds": 3600}}}},
	"containerservice/FleetsUpdateRun": {"managedClusterUpdate": map[string]any{"upgrade": map[string]any{"type": "NodeImageOnly"},
		"nodeImageSelection": map[string]any{"type": "Latest"}},
		"updateStrategyReference": map[string]any{"group": "containerservice.aztenant.io", "kind": "FleetsUpdateStrategy", "name": "sample-fleetsupdatestrategy"}},
	// An Enterprise cluster of the smallest SKU and its one database, which Azure names
	// "default" (a cluster holds one: learn.microsoft.com/azure/azure-cache-for-redis/managed-redis).
	// A cluster's Flux extension and a GitOps configuration through it, as AKS's GitOps
	// tutorial sets them up (learn.microsoft.com/azure/azure-arc/kubernetes/tutorial-use-gitops-flux2).
	"kubernetesconfiguration/Extension": {"owner": map[string]any{"group": "containerservice.aztenant.io", "kind": "ManagedCluster", "name": "sample-aks"},
		"name": "flux", "extensionType": "microsoft.flux", "autoUpgradeMinorVersion": true, "releaseTrain": "Stable",
		"scope": map[string]any{"cluster": map[string]any{"releaseNamespace": "flux-system"}}},
	"kubernetesconfiguration/FluxConfiguration": {"owner": map[string]any{"group": "containerservice.aztenant.io", "kind": "ManagedCluster", "name": "sample-aks"},
		"name": "cluster-config", "scope": "cluster", "namespace": "cluster-config", "sourceKind": "GitRepository",
		"gitRepository": map[string]any{"url": "https://github.com/Azure/gitops-flux2-kustomize-helm-mt", "repositoryRef": map[string]any{"branch": "main"},
			"syncIntervalInSeconds": 600, "timeoutInSeconds": 600},
		"kustomizations": map[string]any{"infra": map[string]any{"path": "./infrastructure", "syncIntervalInSeconds": 600, "prune": true}}},
	// A rule group alerting on an AKS cluster's metrics in its Azure Monitor workspace.
	"alertsmanagement/PrometheusRuleGroup": {"clusterName": "sample-aks", "description": "node alerts", "enabled": true, "interval": "PT1M",
		"scopesReferences": []any{map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Monitor/accounts/sample-amw"}},
		"rules": []any{map[string]any{"alert": "NodeHighCPU", "expression": "avg by (instance) (rate(node_cpu_seconds_total{mode!=\"idle\"}[5m])) > 0.9",
			"for": "PT5M", "severity": 3, "enabled": true, "labels": map[string]any{"team": "platform"}}}},
	// A shared workbook (api-version 2015-05-01's body: its display name, the user who owns it).
	"insights/Workbook": {"kind": "shared", "category": "workbook", "displayName": "Sample workbook", "workbookId": "sample-workbook",
		"userId": "11111111-2222-3333-4444-555555555555", "serializedData": `{"version":"Notebook/1.0","items":[]}`},
	// A custom role reading a group's storage, assignable in that group only.
	"authorization/RoleDefinition": {"roleName": "sample storage reader", "description": "reads storage accounts and their containers",
		"permissions": []any{map[string]any{"actions": []any{"Microsoft.Storage/storageAccounts/read",
			"Microsoft.Storage/storageAccounts/blobServices/containers/read"}}},
		"assignableScopesReferences": []any{map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg"}}},
	// The blob endpoint a server that restricts outbound access may export to.
	"sql/ServersOutboundFirewallRule": {"name": "sample-outbound-blob", "azureName": "samplestorage01.blob.core.windows.net"},
	"cache/RedisEnterprise":           {"sku": map[string]any{"name": "Enterprise_E10", "capacity": 2}, "minimumTlsVersion": "1.2"},
	"cache/RedisEnterpriseDatabase": {"name": "default", "clientProtocol": "Encrypted", "port": 10000,
		"clusteringPolicy": "EnterpriseCluster", "evictionPolicy": "NoEviction"},
	// --- ASO's kinds of the modules pinned for issue 29 ---
	"kusto/Cluster": {"name": "samplekusto01", "sku": map[string]any{"name": "Dev(No SLA)_Standard_E2a_v4", "tier": "Basic", "capacity": 1}},
	"kusto/ClusterPrincipalAssignment": {"name": "sample-admins", "principalId": "11111111-2222-3333-4444-555555555555",
		"principalType": "App", "role": "AllDatabasesViewer", "tenantId": "72f988bf-86f1-41af-91ab-2d7cd011db47"},
	"batch/BatchAccount": {"name": "samplebatch01", "poolAllocationMode": "BatchService", "publicNetworkAccess": "Disabled",
		"autoStorage": map[string]any{"storageAccountReference": map[string]any{"group": "storage.aztenant.io", "kind": "StorageAccount", "name": "samplestorage01"}}},
	"datafactory/Factory":                                {"name": "sample-adf-01", "publicNetworkAccess": "Disabled"},
	"devices/IotHub":                                     {"name": "sample-iothub-01", "sku": map[string]any{"name": "S1", "capacity": 1}},
	"notificationhubs/Namespace":                         {"name": "sample-nh-namespace", "sku": map[string]any{"name": "Free"}, "namespaceType": "NotificationHub"},
	"notificationhubs/NamespacesAuthorizationRule":       {"name": "listen", "rights": []any{"Listen"}},
	"notificationhubs/NotificationHub":                   {"name": "sample-hub"},
	"notificationhubs/NotificationHubsAuthorizationRule": {"name": "send", "rights": []any{"Send"}},
	// Communication Services and their email live in the "global" location, their data
	// in a geography (dataLocation); an Azure-managed domain is named AzureManagedDomain.
	"communication/CommunicationService": {"name": "sample-acs", "location": "global", "dataLocation": "Europe"},
	"communication/EmailService":         {"name": "sample-email", "location": "global", "dataLocation": "Europe"},
	"communication/Domain":               {"name": "azure-managed-domain", "azureName": "AzureManagedDomain", "location": "global", "domainManagement": "AzureManaged"},
	"communication/SenderUsername":       {"name": "donotreply", "username": "DoNotReply", "displayName": "Do not reply"},
	// A vault with locally redundant storage, an operational-store policy of disk snapshots
	// every four hours kept a week (Azure's example), and the sample disk protected by it.
	"dataprotection/BackupVault": {"storageSettings": []any{map[string]any{"datastoreType": "VaultStore", "type": "LocallyRedundant"}}},
	"dataprotection/BackupVaultsBackupPolicy": {"name": "disk-snapshots", "properties": map[string]any{"objectType": "BackupPolicy",
		"datasourceTypes": []any{"Microsoft.Compute/disks"}, "policyRules": []any{
			map[string]any{"name": "BackupHourly", "objectType": "AzureBackupRule",
				"backupParameters": map[string]any{"objectType": "AzureBackupParams", "backupType": "Incremental"},
				"dataStore":        map[string]any{"dataStoreType": "OperationalStore", "objectType": "DataStoreInfoBase"},
				"trigger": map[string]any{"objectType": "ScheduleBasedTriggerContext",
					"schedule":        map[string]any{"repeatingTimeIntervals": []any{"R/2019-11-20T08:00:00-08:00/PT4H"}},
					"taggingCriteria": []any{map[string]any{"isDefault": true, "taggingPriority": 99, "tagInfo": map[string]any{"tagName": "Default"}}}}},
			map[string]any{"name": "Default", "objectType": "AzureRetentionRule", "isDefault": true, "lifecycles": []any{map[string]any{
				"deleteAfter":     map[string]any{"objectType": "AbsoluteDeleteOption", "duration": "P7D"},
				"sourceDataStore": map[string]any{"dataStoreType": "OperationalStore", "objectType": "DataStoreInfoBase"}}}}}}},
	"dataprotection/BackupVaultsBackupInstance": {"name": "sample-disk-backup", "objectType": "BackupInstance", "friendlyName": "sample-disk",
		"dataSourceInfo": map[string]any{"objectType": "Datasource", "datasourceType": "Microsoft.Compute/disks", "resourceType": "Microsoft.Compute/disks",
			"resourceLocation": "westeurope", "resourceName": "sample-disk",
			"resourceReference": map[string]any{"group": "compute.aztenant.io", "kind": "Disk", "name": "sample-disk"}},
		"policyInfo": map[string]any{"policyId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.DataProtection/backupVaults/sample-backupvault/backupPolicies/disk-snapshots"}},
	"synapse/Workspace": {"name": "sample-synapse-01", "sqlAdministratorLogin": "sqladmin", "sqlAdministratorLoginPassword": adminPassword,
		"defaultDataLakeStorage": map[string]any{"accountUrl": "https://samplestorage01.dfs.core.windows.net", "filesystem": "synapse"}},
	"synapse/WorkspacesBigDataPool": {"name": "sparkpool", "nodeCount": 3, "nodeSize": "Small", "nodeSizeFamily": "MemoryOptimized",
		"sparkVersion": "3.4", "autoPause": map[string]any{"enabled": true, "delayInMinutes": 15}},
	"containerservice/MaintenanceConfiguration": {"name": "default", "timeInWeek": []any{map[string]any{"day": "Saturday", "hourSlots": []any{1, 2, 3}}}},
	// --- batch 5: children and companions ---
	"servicebus/NamespacesAuthorizationRule":        {"name": "send-listen", "rights": []any{"Listen", "Send"}},
	"servicebus/NamespacesQueuesAuthorizationRule":  {"name": "listen", "rights": []any{"Listen"}},
	"servicebus/TopicAuthorizationRule":             {"name": "send", "rights": []any{"Send"}},
	"eventhub/NamespacesAuthorizationRule":          {"name": "send-listen", "rights": []any{"Listen", "Send"}},
	"eventhub/NamespacesEventhubsAuthorizationRule": {"name": "listen", "rights": []any{"Listen"}},
	"eventhub/NamespacesSchemagroup":                {"name": "orders", "schemaCompatibility": "Backward", "schemaType": "Avro"},
	"eventhub/NamespacesApplicationGroup": {"name": "analytics", "isEnabled": true,
		"clientAppGroupIdentifier": "AADAppID=00000000-0000-0000-0000-000000000002"},
	"operationalinsights/WorkspacesTable": {"name": "sample-logs-cl", "azureName": "SampleLogs_CL", "plan": "Analytics", "retentionInDays": 30, "totalRetentionInDays": 90,
		"schema": map[string]any{"name": "SampleLogs_CL", "columns": []any{map[string]any{"name": "TimeGenerated", "type": "dateTime"},
			map[string]any{"name": "Message", "type": "string"}}}},
	"operationalinsights/WorkspacesDataExport": {"name": "to-storage", "enable": true, "tableNames": []any{"Heartbeat"},
		"destination": map[string]any{"resourceReference": map[string]any{"group": "storage.aztenant.io", "kind": "StorageAccount", "name": "samplestorage01"}}},
	"operationalinsights/WorkspacesSavedSearch": {"name": "errors", "category": "Sample", "displayName": "Errors", "version": 2,
		"query": "AzureActivity | where Level == 'Error'"},
	"operationalinsights/WorkspacesLinkedService": {"name": "cluster",
		"writeAccessResourceReference": map[string]any{"kind": "Cluster", "name": "sample-cluster"}},
	"operationalinsights/WorkspacesDataSource": {"name": "syslog", "kind": "LinuxSyslog",
		"properties": map[string]any{"syslogName": "auth", "syslogSeverities": []any{map[string]any{"severity": "warning"}}}},
	"operationalinsights/Cluster": {"sku": map[string]any{"name": "CapacityReservation", "capacity": 100},
		"identity": map[string]any{"type": "SystemAssigned"}, "billingType": "Cluster"},
	"operationalinsights/QueryPack": {},
	"operationalinsights/QueryPacksQuery": {"name": "0f3a9b5c-1d2e-4f60-8a7b-9c0d1e2f3a4b", "displayName": "Errors", "description": "errors of the day",
		"body": "AzureActivity | where Level == 'Error'"},
	"storage/StorageAccountsLocalUser": {"name": "sftpuser", "hasSshKey": true, "hasSshPassword": false, "homeDirectory": "sample-share",
		"permissionScopes":  []any{map[string]any{"permissions": "rw", "service": "file", "resourceName": "sample-share"}},
		"sshAuthorizedKeys": []any{map[string]any{"description": "ci", "key": sampleSSHKey}}},
	"storage/StorageAccountsInventoryPolicy": {"policy": map[string]any{"enabled": true, "type": "Inventory", "rules": []any{map[string]any{
		"name": "daily", "enabled": true, "destination": "inventory", "definition": map[string]any{"format": "Csv", "objectType": "Blob", "schedule": "Daily",
			"schemaFields": []any{"Name", "Content-Length"}}}}}},
	"appconfiguration/KeyValue": {"name": "app-color", "value": "blue", "contentType": "text/plain", "tags": map[string]any{"team": "sample"}},
	"appconfiguration/Replica":  {"name": "northeurope", "location": "northeurope"},
	"insights/Webtest": {"kind": "ping", "Kind": "ping", "Configuration": map[string]any{"WebTest": samplePingTest}, "Name": "sample-ping", "SyntheticMonitorId": "sample-webtest", "Enabled": true,
		"Frequency": 300, "Timeout": 30, "RetryEnabled": true, "Locations": []any{map[string]any{"Id": "emea-nl-ams-azr"}},
		"tags": map[string]any{"environment": "sample"}},
	"dbformysql/FlexibleServersAdministrator": {"administratorType": "ActiveDirectory", "login": "mysql-admins",
		"sid": "9f8e7d6c-5b4a-4321-9876-fedcba987654", "tenantId": "00000000-0000-0000-0000-000000000000",
		"identityResourceReference": map[string]any{"group": "managedidentity.aztenant.io", "kind": "UserAssignedIdentity", "name": SampleIdentity}},
	"cache/RedisPatchSchedule": {"scheduleEntries": []any{map[string]any{"dayOfWeek": "Sunday", "startHourUtc": 2, "maintenanceWindow": "PT5H"}}},
	"containerservice/TrustedAccessRoleBinding": {"name": "ml-access", "roles": []any{"Microsoft.MachineLearningServices/workspaces/mlworkload"},
		"sourceResourceReference": map[string]any{"group": "machinelearningservices.aztenant.io", "kind": "Workspace", "name": "sample-mlworkspace"}},
	"containerservice/ManagedClustersManagedNamespace": {"name": "team-apps", "labels": map[string]any{"team": "sample"},
		"defaultNetworkPolicy": map[string]any{"ingress": "AllowSameNamespace", "egress": "AllowAll"},
		"defaultResourceQuota": map[string]any{"cpuRequest": "2", "memoryRequest": "4Gi"}},
	"containerservice/Snapshot": {"snapshotType": "NodePool", "creationData": map[string]any{"sourceResourceReference": map[string]any{
		"kind": "ManagedClustersAgentPool", "name": "user1"}}},
	"documentdb/MongodbRoleDefinition": {"name": "sample-db.reader", "roleName": "reader", "databaseName": "sample-mongodb", "type": "CustomRole",
		"privileges": []any{map[string]any{"actions": []any{"find"}, "resource": map[string]any{"db": "sample-mongodb", "collection": "sample-collection"}}}},
	"documentdb/MongodbUserDefinition": {"name": "sample-db.app", "userName": "app", "databaseName": "sample-mongodb", "password": adminPassword,
		"mechanisms": "SCRAM-SHA-256", "roles": []any{map[string]any{"db": "sample-mongodb", "role": "reader"}}},
	"network/VirtualNetworkGateway": {"gatewayType": "Vpn", "vpnType": "RouteBased", "vpnGatewayGeneration": "Generation2", "enableBgp": false, "activeActive": false,
		"sku": map[string]any{"name": "VpnGw2AZ", "tier": "VpnGw2AZ"}, "ipConfigurations": []any{map[string]any{"name": "default",
			"privateIPAllocationMethod": "Dynamic", "subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}, "publicIPAddress": map[string]any{"reference": map[string]any{"kind": "PublicIPAddress", "name": "sample-publicipaddress"}}}}},
	"network/Connection": {"connectionType": "IPsec", "connectionProtocol": "IKEv2", "routingWeight": 10, "sharedKey": adminPassword,
		"virtualNetworkGateway1": map[string]any{"reference": map[string]any{"kind": "VirtualNetworkGateway", "name": "sample-virtualnetworkgateway"}},
		"localNetworkGateway2":   map[string]any{"reference": map[string]any{"kind": "LocalNetworkGateway", "name": "sample-localnetworkgateway"}}},
	"network/VirtualWan": {"type": "Standard", "allowBranchToBranchTraffic": true, "disableVpnEncryption": false},
	"network/VirtualHub": {"addressPrefix": "10.100.0.0/24", "sku": "Standard", "virtualWan": map[string]any{"reference": map[string]any{"kind": "VirtualWan", "name": "sample-virtualwan"}}},
	"network/VpnGateway": {"vpnGatewayScaleUnit": 1, "virtualHub": map[string]any{"reference": map[string]any{"kind": "VirtualHub", "name": "sample-virtualhub"}}, "isRoutingPreferenceInternet": false},
	"network/VpnSite": {"ipAddress": "203.0.113.20", "virtualWan": map[string]any{"reference": map[string]any{"kind": "VirtualWan", "name": "sample-virtualwan"}}, "addressSpace": map[string]any{"addressPrefixes": []any{"192.168.10.0/24"}},
		"deviceProperties": map[string]any{"deviceVendor": "sample", "linkSpeedInMbps": 100}},
	"network/IpAllocation": {"type": "Hypernet", "prefix": "10.200.0.0/24", "allocationTags": map[string]any{"vnet": "sample"}},
	"network/CustomIpPrefix": {"cidr": "203.0.113.0/24", "commissionedState": "Provisioning", "noInternetAdvertise": false,
		"zones": []any{"1", "2", "3"}},
	"network/NetworkProfile": {"containerNetworkInterfaceConfigurations": []any{map[string]any{"name": "eth0",
		"ipConfigurations": []any{map[string]any{"name": "ipconfig", "subnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}}}}}},
	"network/ExpressRouteCircuit": {"sku": map[string]any{"name": "Standard_MeteredData", "tier": "Standard", "family": "MeteredData"},
		"allowClassicOperations": false, "serviceProviderProperties": map[string]any{"serviceProviderName": "Equinix", "peeringLocation": "Amsterdam",
			"bandwidthInMbps": 50}},
	"sql/ServersDatabasesBackupLongTermRetentionPolicy": {"weeklyRetention": "P4W", "monthlyRetention": "P12M", "yearlyRetention": "P5Y", "weekOfYear": 1},
	"sql/ServersKey": {"name": "sample-serverskey", "azureName": "sample-vault-01_disks_0123456789abcdef0123456789abcdef", "serverKeyType": "AzureKeyVault",
		"uri": "https://sample-vault-01.vault.azure.net/keys/disks/0123456789abcdef0123456789abcdef"},
	"sql/ServersDnsAlias": {"name": "sample-sql-alias"},
	"sql/ServersJobAgent": {"sku": map[string]any{"name": "JA100", "capacity": 100},
		"databaseReference": map[string]any{"kind": "ServersDatabase", "name": "sample-serversdatabase"}},
	"sql/ServersEncryptionProtector": {"serverKeyType": "ServiceManaged", "serverKeyName": "ServiceManaged", "autoRotationEnabled": false},
	"apimanagement/ApiOperation":     {"displayName": "List orders", "method": "GET", "urlTemplate": "/orders", "description": "all of them"},
	"apimanagement/ApiPolicy":        {"format": "xml", "value": "<policies><inbound><base /><rate-limit calls=\"10\" renewal-period=\"60\" /></inbound><backend><base /></backend><outbound><base /></outbound></policies>"},
	"apimanagement/Policy":           {"format": "xml", "value": "<policies><inbound><cors><allowed-origins><origin>*</origin></allowed-origins></cors></inbound><backend><forward-request /></backend><outbound /></policies>"},
	"apimanagement/ProductPolicy":    {"format": "xml", "value": "<policies><inbound><base /><quota calls=\"1000\" renewal-period=\"86400\" /></inbound><backend><base /></backend><outbound><base /></outbound></policies>"},
	"apimanagement/Certificate":      {"name": "tls", "keyVault": map[string]any{"secretIdentifier": "https://sample-vault-01.vault.azure.net/secrets/tls"}},
	"apimanagement/OpenIdConnectProvider": {"displayName": "Entra", "clientId": "sample-client", "useInTestConsole": false,
		"metadataEndpoint": "https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/v2.0/.well-known/openid-configuration"},
	"apimanagement/Diagnostic": {"name": "azuremonitor", "alwaysLog": "allErrors", "logClientIp": true, "verbosity": "information",
		"loggerReference": map[string]any{"kind": "Logger", "name": "sample-logger"}, "sampling": map[string]any{"samplingType": "fixed", "percentage": 100}},
	"web/SitesHostNameBinding": {"name": "www.example.com", "hostNameType": "Verified", "customHostNameDnsRecordType": "CName", "sslState": "Disabled"},
	"web/StaticSite": {"sku": map[string]any{"name": "Standard", "tier": "Standard"}, "stagingEnvironmentPolicy": "Enabled", "allowConfigFileUpdates": true,
		"repositoryUrl": "https://github.com/example/site", "branch": "main", "repositoryToken": adminPassword,
		"buildProperties": map[string]any{"appLocation": "/", "outputLocation": "dist"}},
	"compute/GalleriesImagesVersion": {"name": "1.0.0", "publishingProfile": map[string]any{"replicaCount": 1, "excludeFromLatest": false},
		"storageProfile": map[string]any{"source": map[string]any{"virtualMachineReference": map[string]any{"kind": "VirtualMachine", "name": "sample-virtualmachine"}}}},
	"compute/GalleriesApplicationsVersion": {"name": "1.0.0", "publishingProfile": map[string]any{"replicaCount": 1,
		"source":        map[string]any{"mediaLink": "https://samplestorage01.blob.core.windows.net/apps/agent.tar.gz"},
		"manageActions": map[string]any{"install": "tar -xzf agent.tar.gz && ./install.sh", "remove": "./uninstall.sh"}}},
	"compute/CapacityReservation":            {"sku": map[string]any{"name": "Standard_D2s_v5", "capacity": 2}, "zones": []any{"1"}},
	"cognitiveservices/AccountsRaiBlocklist": {"name": "sample-blocklist", "description": "words the team blocks"},
	"signalrservice/CustomDomain": {"name": "chat", "domainName": "chat.example.com",
		"customCertificate": map[string]any{"reference": map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.SignalRService/signalR/sample-signalr-01/customCertificates/chat"}}},
	"webpubsub/WebPubSubCustomDomain": {"name": "pubsub", "domainName": "pubsub.example.com",
		"customCertificate": map[string]any{"reference": map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.SignalRService/webPubSub/sample-webpubsub-01/customCertificates/pubsub"}}},
	"app/ConnectedEnvironment":                  {"staticIp": "10.0.1.10"},
	"app/ManagedEnvironmentsManagedCertificate": {"name": "www", "subjectName": "www.example.com", "domainControlValidation": "CNAME"},
	"machinelearningservices/WorkspacesDatastore": {"name": "blobdata", "properties": map[string]any{"datastoreType": "AzureBlob",
		"accountName": "samplestorage01", "containerName": "data", "credentials": map[string]any{"credentialsType": "None"}}},
	"machinelearningservices/WorkspacesOnlineEndpoint": {"name": "sample-scoring", "authMode": "Key", "kind": "Managed",
		"identity": map[string]any{"type": "SystemAssigned"}, "publicNetworkAccess": "Enabled", "description": "scoring"},
	"machinelearningservices/Registry": {"name": "sample-mlregistry", "publicNetworkAccess": "Enabled",
		"regionDetails": []any{map[string]any{"location": "westeurope", "acrDetails": []any{map[string]any{"systemCreatedAcrAccount": map[string]any{"acrAccountSku": "Premium"}}}}}},
	// --- batch 6 ---
	"network/ExpressRouteCircuitsAuthorization": {"name": "partner"},
	"network/ExpressRouteCircuitsPeering": {"name": "azureprivatepeering", "azureName": "AzurePrivatePeering", "peeringType": "AzurePrivatePeering",
		"peerASN": 65010, "vlanId": 200, "primaryPeerAddressPrefix": "192.168.16.252/30", "secondaryPeerAddressPrefix": "192.168.18.252/30"},
	"network/VirtualNetworkGatewaysNatRule": {"name": "onprem", "type": "Static", "mode": "IngressSnat",
		"internalMappings": []any{map[string]any{"addressSpace": "10.4.0.0/24"}}, "externalMappings": []any{map[string]any{"addressSpace": "192.168.21.0/24"}}},
	"network/NetworkManager": {"description": "the team's network manager", "networkManagerScopeAccesses": []any{"Connectivity"},
		"networkManagerScopes": map[string]any{"subscriptions": []any{sampleSub}}},
	"network/VirtualRouter":         {"virtualRouterAsn": 65515, "hostedSubnet": map[string]any{"reference": map[string]any{"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}}},
	"network/VirtualRoutersPeering": {"peerAsn": 65001, "peerIp": "10.0.1.20"},
	"network/VirtualHubsHubRouteTable": {"name": "sample-routes", "labels": []any{"sample"}, "routes": []any{map[string]any{"name": "to-firewall",
		"destinationType": "CIDR", "destinations": []any{"10.0.0.0/8"}, "nextHopType": "ResourceId",
		"nextHop": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/azureFirewalls/sample-azurefirewall"}}},
	"network/VirtualHubsHubVirtualNetworkConnection": {"name": "spoke", "enableInternetSecurity": true, "remoteVirtualNetwork": map[string]any{"reference": map[string]any{"kind": "VirtualNetwork", "name": "sample-virtualnetwork"}}},
	"network/VirtualHubsBgpConnection":               {"name": "nva", "peerAsn": 65002, "peerIp": "10.0.1.30"},
	"network/VpnGatewaysVpnConnection": {"name": "branch", "enableBgp": false, "routingWeight": 10, "sharedKey": adminPassword,
		"vpnConnectionProtocolType": "IKEv2", "remoteVpnSite": map[string]any{"reference": map[string]any{"kind": "VpnSite", "name": "sample-vpnsite"}}},
	"network/VpnServerConfiguration": {"vpnProtocols": []any{"OpenVPN"}, "vpnAuthenticationTypes": []any{"AAD"},
		"aadAuthenticationParameters": map[string]any{"aadTenant": "https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000",
			"aadAudience": "c632b3df-fb67-4d84-bdcf-b95ad541b5c8", "aadIssuer": "https://sts.windows.net/00000000-0000-0000-0000-000000000000/"}},
	"network/NetworkSecurityPerimeter": {},
	"apimanagement/ApiRelease": {"name": "orders-v1", "notes": "the first release",
		"apiId": "/apis/sample-api"},
	"apimanagement/ApiSchema": {"name": "orders-schema", "contentType": "application/vnd.oai.openapi.components+json",
		"document": map[string]any{"components": map[string]any{"schemas": map[string]any{"Order": map[string]any{"type": "object"}}}}},
	"apimanagement/ApiDiagnostic": {"name": "applicationinsights", "alwaysLog": "allErrors", "verbosity": "error",
		"loggerReference": map[string]any{"kind": "Logger", "name": "sample-logger"}},
	"apimanagement/ServiceGatewayHostnameConfiguration": {"name": "api", "hostname": "api.example.com", "http2Enabled": true, "tls10Enabled": false, "tls11Enabled": false},
	"apimanagement/GlobalSchema": {"name": "order", "schemaType": "json", "description": "an order",
		"document": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}}},
	"machinelearningservices/WorkspacesCode":        {"name": "training", "properties": map[string]any{"description": "training code"}},
	"machinelearningservices/WorkspacesModel":       {"name": "classifier", "properties": map[string]any{"description": "the classifier"}},
	"machinelearningservices/WorkspacesEnvironment": {"name": "python", "properties": map[string]any{"description": "Python 3.12"}},
	"machinelearningservices/WorkspacesData":        {"name": "orders", "properties": map[string]any{"dataType": "uri_folder", "description": "order exports"}},
	"machinelearningservices/WorkspacesComponent":   {"name": "train", "properties": map[string]any{"description": "a training step"}},
	"machinelearningservices/WorkspacesBatchEndpoint": {"name": "sample-batch", "authMode": "AADToken",
		"properties": map[string]any{"authMode": "AADToken", "description": "nightly scoring"}},
	"app/ContainerAppsSourcecontrol":   {"name": "current", "repoUrl": "https://github.com/example/web", "branch": "main"},
	"app/ConnectedEnvironmentsStorage": {"name": "share", "azureFile": map[string]any{"accountName": "samplestorage01", "shareName": "sample-share", "accessMode": "ReadOnly"}},
	"app/ConnectedEnvironmentsDaprComponent": {"name": "statestore", "componentType": "state.redis", "version": "v1",
		"metadata": []any{map[string]any{"name": "redisHost", "value": "sample-redis.redis.cache.windows.net:6380"}}},
	"app/ConnectedEnvironmentsCertificate": {"name": "tls", "certificateKeyVaultProperties": map[string]any{"identity": "system",
		"keyVaultUrl": "https://sample-vault-01.vault.azure.net/secrets/tls"}},
	"web/SitesSlotsHostNameBinding": {"name": "staging.example.com", "hostNameType": "Verified", "customHostNameDnsRecordType": "CName", "sslState": "Disabled"},
	"web/KubeEnvironment":           {"kind": "containerenvironment", "environmentType": "Managed", "internalLoadBalancerEnabled": false},
	"documentdb/CassandraCluster": {"name": "sample-cassandra", "cassandraVersion": "4.0", "authenticationMethod": "Cassandra", "hoursBetweenBackups": 24,
		"initialCassandraAdminPassword": adminPassword, "delegatedManagementSubnetReference": map[string]any{"group": "network.aztenant.io",
			"kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}},
	"documentdb/CassandraDataCenter": {"name": "dc1", "dataCenterLocation": "westeurope", "nodeCount": 3, "sku": "Standard_E8s_v5",
		"diskCapacity": 4, "delegatedSubnetReference": map[string]any{"group": "network.aztenant.io", "kind": "VirtualNetworksSubnet", "name": "sample-virtualnetworkssubnet"}},
	"eventgrid/PartnerRegistration": {"partnerRegistrationImmutableId": "941892bc-f5d0-4d1c-8fb5-477570fc2b71"},
	"eventgrid/PartnerNamespace": {"publicNetworkAccess": "Enabled", "disableLocalAuth": true, "partnerTopicRoutingMode": "ChannelNameHeader",
		"partnerRegistrationFullyQualifiedReference": map[string]any{"kind": "PartnerRegistration", "name": "sample-partnerregistration"}},
	"eventgrid/PartnerNamespacesChannel": {"name": "orders", "channelType": "PartnerTopic", "messageForActivation": "please activate",
		"partnerTopicInfo": map[string]any{"azureSubscriptionId": "00000000-0000-0000-0000-000000000000", "resourceGroupName": "sample-rg", "name": "orders",
			"source": "orders.example.com"}},
	"eventhub/Cluster": {"sku": map[string]any{"name": "Dedicated", "capacity": 1}, "supportsScaling": false},
	"cognitiveservices/Project": {"name": "sample-project", "displayName": "Sample project", "description": "the team's project",
		"identity": map[string]any{"type": "SystemAssigned"}},
	"cognitiveservices/AccountsEncryptionScope": {"name": "sample-scope", "keySource": "Microsoft.CognitiveServices", "state": "Enabled"},
	"cognitiveservices/AccountsConnection": {"name": "search", "properties": map[string]any{"authType": "AAD", "category": "CognitiveSearch",
		"target": "https://sample-search-01.search.windows.net"}},
	"keyvault/ManagedHSM": {"name": "sample-hsm-01", "sku": map[string]any{"family": "B", "name": "Standard_B1"},
		"tenantId": "00000000-0000-0000-0000-000000000000", "initialAdminObjectIds": []any{"11111111-2222-3333-4444-555555555555"},
		"enableSoftDelete": true, "softDeleteRetentionInDays": 7, "enablePurgeProtection": false, "publicNetworkAccess": "Disabled"},
	"containerregistry/Registry": {"name": "sampleregistry01", "sku": map[string]any{"name": "Basic"}, "adminUserEnabled": false,
		"identity": map[string]any{"type": "UserAssigned", "userAssignedIdentities": []any{map[string]any{"reference": map[string]any{"name": SampleIdentity}}}}},
	"sql/ServersAuditingSetting": {"state": "Enabled", "isAzureMonitorTargetEnabled": true,
		"auditActionsAndGroups": []any{"SUCCESSFUL_DATABASE_AUTHENTICATION_GROUP", "FAILED_DATABASE_AUTHENTICATION_GROUP", "BATCH_COMPLETED_GROUP"}},
	"sql/ServersDatabasesAuditingSetting": {"state": "Enabled", "isAzureMonitorTargetEnabled": true,
		"auditActionsAndGroups": []any{"SCHEMA_OBJECT_CHANGE_GROUP", "DATABASE_PERMISSION_CHANGE_GROUP"}},
	"sql/ServersVulnerabilityAssessment": {"storageContainerPath": "https://samplestorage01.blob.core.windows.net/vulnerability-assessment/",
		"recurringScans": map[string]any{"isEnabled": true, "emailSubscriptionAdmins": true, "emails": []any{"dba@example.com"}}},
	"sql/ServersDatabasesVulnerabilityAssessment": {"storageContainerPath": "https://samplestorage01.blob.core.windows.net/vulnerability-assessment/",
		"recurringScans": map[string]any{"isEnabled": true, "emailSubscriptionAdmins": false, "emails": []any{"dba@example.com"}}},
	"dbforpostgresql/FlexibleServersAdministrator": {"name": "sample-pg-admins", "azureName": "11111111-2222-3333-4444-555555555555",
		"principalName": "pg-admins", "principalType": "Group", "tenantId": "00000000-0000-0000-0000-000000000000"},
	"dbforpostgresql/FlexibleServersConfiguration": {"name": "sample-pg-log-min-duration", "azureName": "log_min_duration_statement",
		"value": "1000", "source": "user-override"},
	"dbforpostgresql/FlexibleServersAdvancedThreatProtectionSettings": {"state": "Enabled"},
	"dbforpostgresql/FlexibleServersBackup":                           {"name": "sample-pg-backup", "azureName": "before-upgrade"},
	"dbforpostgresql/FlexibleServersVirtualEndpoint": {"name": "sample-pg-endpoint", "azureName": "sample-pg-rw",
		"endpointType": "ReadWrite", "members": []any{"sample-postgres"}},
	"dbformysql/FlexibleServersConfiguration": {"name": "sample-mysql-slow-query-log", "azureName": "slow_query_log",
		"value": "ON", "source": "user-override"},
	"signalrservice/CustomCertificate": {"name": "chat-tls", "keyVaultBaseUri": "https://sample-vault-01.vault.azure.net/",
		"keyVaultSecretName": "chat-tls"},
	"cache/RedisLinkedServer": {"name": "sample-redis-secondary", "linkedRedisCacheLocation": "northeurope", "serverRole": "Secondary",
		"linkedRedisCacheReference": map[string]any{"armId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/sample-rg/providers/Microsoft.Cache/Redis/sample-redis-secondary"}},
	"web/SitesSourcecontrol": {"repoUrl": "https://github.com/example/orders", "branch": "main", "isManualIntegration": true,
		"isMercurial": false, "deploymentRollbackEnabled": false},
	"documentdb/SqlDatabaseThroughputSetting":               {"resource": map[string]any{"throughput": 500}},
	"documentdb/SqlDatabaseContainerThroughputSetting":      {"resource": map[string]any{"throughput": 500}},
	"documentdb/MongodbDatabaseThroughputSetting":           {"resource": map[string]any{"throughput": 500}},
	"documentdb/MongodbDatabaseCollectionThroughputSetting": {"resource": map[string]any{"throughput": 500}},
	"apimanagement/ServiceGatewayCertificateAuthority":      {"name": "sample-gateway-ca", "azureName": "tls", "isTrusted": true},

	// Azure Front Door Standard (cdn): a profile with an endpoint that routes every path over
	// HTTPS to an App Service origin, a custom domain with a managed certificate, a rule set
	// adding a security header, a customer certificate from Key Vault and a WAF policy on the
	// endpoint. Front Door's profiles and endpoints are global. Rule sets and rules take
	// letters and digits only (no '-').
	"cdn/Profile":     {"location": "global", "sku": map[string]any{"name": "Standard_AzureFrontDoor"}, "originResponseTimeoutSeconds": 60},
	"cdn/AfdEndpoint": {"location": "global", "enabledState": "Enabled", "autoGeneratedDomainNameLabelScope": "TenantReuse"},
	"cdn/AfdOriginGroup": {"sessionAffinityState": "Disabled", "trafficRestorationTimeToHealedOrNewEndpointsInMinutes": 10,
		"loadBalancingSettings": map[string]any{"sampleSize": 4, "successfulSamplesRequired": 3, "additionalLatencyInMilliseconds": 50},
		"healthProbeSettings":   map[string]any{"probePath": "/healthz", "probeProtocol": "Https", "probeRequestType": "HEAD", "probeIntervalInSeconds": 100}},
	"cdn/AfdOrigin": {"hostName": "sample-app.azurewebsites.net", "originHostHeader": "sample-app.azurewebsites.net", "httpPort": 80, "httpsPort": 443,
		"priority": 1, "weight": 1000, "enabledState": "Enabled", "enforceCertificateNameCheck": true},
	"cdn/AfdCustomDomain": {"hostName": "www.example.com",
		"tlsSettings": map[string]any{"certificateType": "ManagedCertificate", "minimumTlsVersion": "TLS12"}},
	"cdn/RuleSet": {"name": "securityheaders"},
	"cdn/Rule": {"name": "framedeny", "order": 1, "matchProcessingBehavior": "Continue",
		"conditions": []any{map[string]any{"name": "RequestScheme", "parameters": map[string]any{"typeName": "DeliveryRuleRequestSchemeConditionParameters",
			"operator": "Equal", "matchValues": []any{"HTTPS"}, "negateCondition": false}}},
		"actions": []any{map[string]any{"name": "ModifyResponseHeader", "parameters": map[string]any{"typeName": "DeliveryRuleHeaderActionParameters",
			"headerAction": "Overwrite", "headerName": "X-Frame-Options", "value": "DENY"}}}},
	"cdn/Secret": {"parameters": map[string]any{"type": "CustomerCertificate", "useLatestVersion": true,
		"secretSource": map[string]any{"id": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.KeyVault/vaults/sample-kv/secrets/www-example-com"}}},
	"cdn/SecurityPolicy": {"parameters": map[string]any{"type": "WebApplicationFirewall",
		"wafPolicy": map[string]any{"id": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/frontDoorWebApplicationFirewallPolicies/samplewaf"},
		"associations": []any{map[string]any{"patternsToMatch": []any{"/*"}, "domains": []any{map[string]any{
			"id": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Cdn/profiles/sample-profile/afdEndpoints/sample-afdendpoint"}}}}}},
	"cdn/Route": {"enabledState": "Enabled", "forwardingProtocol": "HttpsOnly", "httpsRedirect": "Enabled", "linkToDefaultDomain": "Enabled",
		"supportedProtocols": []any{"Http", "Https"}, "patternsToMatch": []any{"/*"},
		"originGroup":   map[string]any{"reference": map[string]any{"kind": "AfdOriginGroup", "name": "sample-afdorigingroup"}},
		"customDomains": []any{map[string]any{"reference": map[string]any{"kind": "AfdCustomDomain", "name": "sample-afdcustomdomain"}}},
		"ruleSets":      []any{map[string]any{"reference": map[string]any{"kind": "RuleSet", "name": "securityheaders"}}}},
	// A classic Azure CDN endpoint in front of a storage account's static website.
	"cdn/ProfilesEndpoint": {"location": "global", "isHttpAllowed": false, "isHttpsAllowed": true,
		"originHostHeader": "samplestorage01.z6.web.core.windows.net", "queryStringCachingBehavior": "IgnoreQueryString",
		"origins": []any{map[string]any{"name": "website", "hostName": "samplestorage01.z6.web.core.windows.net", "httpsPort": 443, "enabled": true}}},

	// Traffic Manager: a profile routing by performance with HTTPS health checks, to an Azure
	// endpoint (a public IP), an external one and a nested profile. Profiles are global; an
	// endpoint's location is spelled as Azure's examples spell it (a display name).
	"network/TrafficManagerProfile": {"location": "global", "profileStatus": "Enabled", "trafficRoutingMethod": "Performance",
		"dnsConfig":     map[string]any{"relativeName": "sample-tm-app", "ttl": 60},
		"monitorConfig": map[string]any{"protocol": "HTTPS", "port": 443, "path": "/healthz", "intervalInSeconds": 30, "timeoutInSeconds": 10, "toleratedNumberOfFailures": 3}},
	"network/TrafficManagerProfilesAzureEndpoint": {"name": "westeurope-ip", "endpointStatus": "Enabled", "priority": 1, "weight": 100,
		"targetResourceReference": map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/publicIPAddresses/sample-app-ip"}},
	"network/TrafficManagerProfilesExternalEndpoint": {"name": "on-premises", "endpointStatus": "Enabled", "target": "app.example.com",
		"endpointLocation": "North Europe", "priority": 2, "weight": 100},
	"network/TrafficManagerProfilesNestedEndpoint": {"name": "europe", "endpointStatus": "Enabled", "endpointLocation": "West Europe", "minChildEndpoints": 1,
		"priority": 3, "weight": 100,
		"targetResourceReference": map[string]any{"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/trafficManagerProfiles/sample-tm-europe"}},

	// A Front Door WAF policy (network.frontdoor), global, for a Premium profile: Microsoft's
	// default rule set blocking, and a rate limit per client address. Its name takes letters and
	// digits only, starting with a letter.
	"network.frontdoor/WebApplicationFirewallPolicy": {"name": "samplefrontdoorwaf", "location": "global",
		"sku": map[string]any{"name": "Premium_AzureFrontDoor"},
		"policySettings": map[string]any{"enabledState": "Enabled", "mode": "Prevention", "requestBodyCheck": "Enabled",
			"customBlockResponseStatusCode": 403},
		"managedRules": map[string]any{"managedRuleSets": []any{map[string]any{"ruleSetType": "Microsoft_DefaultRuleSet",
			"ruleSetVersion": "2.1", "ruleSetAction": "Block"}}},
		"customRules": map[string]any{"rules": []any{map[string]any{"name": "ratelimitperclient", "priority": 100, "enabledState": "Enabled",
			"ruleType": "RateLimitRule", "rateLimitDurationInMinutes": 1, "rateLimitThreshold": 1000, "action": "Block",
			"groupBy": []any{map[string]any{"variableName": "SocketAddr"}},
			"matchConditions": []any{map[string]any{"matchVariable": "RequestUri", "operator": "Any", "negateCondition": false,
				"matchValue": []any{}}}}}}},

	// Container Instances: one Linux container serving HTTP on a private address in a subnet.
	"containerinstance/ContainerGroup": {"osType": "Linux", "restartPolicy": "Always", "sku": "Standard",
		"containers": []any{map[string]any{"name": "app", "image": "mcr.microsoft.com/azuredocs/aci-helloworld:latest",
			"resources": map[string]any{"requests": map[string]any{"cpu": 1, "memoryInGB": 1.5}},
			"ports":     []any{map[string]any{"port": 80, "protocol": "TCP"}}}},
		"ipAddress": map[string]any{"type": "Private", "ports": []any{map[string]any{"port": 80, "protocol": "TCP"}}},
		"subnetIds": []any{map[string]any{"reference": map[string]any{
			"armId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Network/virtualNetworks/sample-virtualnetwork/subnets/aci"}}}},
}

// SampleSecret is the Secret the samples' write-only values (administrator passwords)
// come from; it must exist in the samples' namespace.
const SampleSecret = "sample-admin-password"

// SampleIdentity is the UserAssignedIdentity a sample runs as; it must exist in the
// samples' namespace.
const SampleIdentity = "sample-identity"

// sampleSub is the subscription of the ARM IDs samples give by armId.
const sampleSub = "/subscriptions/00000000-0000-0000-0000-000000000000"

// sampleEventSubscription delivers events to a storage queue, with retries and a filter.
var sampleEventSubscription = map[string]any{"eventDeliverySchema": "EventGridSchema",
	"destination": map[string]any{"endpointType": "StorageQueue", "properties": map[string]any{
		"resourceId": sampleSub + "/resourceGroups/sample-rg/providers/Microsoft.Storage/storageAccounts/samplestorage01", "queueName": "sample-queue"}},
	"filter":      map[string]any{"includedEventTypes": []any{"Microsoft.Storage.BlobCreated"}},
	"retryPolicy": map[string]any{"maxDeliveryAttempts": 10, "eventTimeToLiveInMinutes": 1440}}

// sampleSSHKey is a made-up public key in OpenSSH's format.
const sampleSSHKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHsampleSampleSampleSampleSampleSampleSampleSa sample@example.com"

// samplePingTest is a URL ping test as Application Insights' classic web tests spell it.
const samplePingTest = `<WebTest Name="sample-ping" Enabled="True" Timeout="30" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">` +
	`<Items><Request Method="GET" Url="https://app.example.com/healthz" ExpectedHttpStatusCode="200" /></Items></WebTest>`

var sampleCORS = map[string]any{"corsRules": []any{map[string]any{"allowedOrigins": []any{"https://app.example.com"},
	"allowedMethods": []any{"GET"}, "allowedHeaders": []any{"*"}, "exposedHeaders": []any{"*"}, "maxAgeInSeconds": 3600}}}

var adminPassword = map[string]any{"name": SampleSecret, "key": "password"}

// SampleName is metadata.name of a kind's sample.
func SampleName(k *Kind) string {
	if v, ok := sampleValues[k.Group.Name+"/"+k.Kind.Kind]["name"].(string); ok {
		return v
	}
	return "sample-" + strings.ToLower(k.Kind.Kind)
}

// sampleFile is a manifest of the kind with its required fields set, owned by its parent's
// sample (or the resource group sample-rg).
func sampleFile(k *Kind) []byte {
	spec := map[string]any{}
	owner := "sample-rg"
	if k.Owner != nil {
		owner = SampleName(k.Owner)
	}
	if !k.Subscription {
		spec["owner"] = map[string]any{"name": owner}
	}
	if k.loc != nil {
		spec["location"] = "westeurope"
	}
	if k.tags {
		spec["tags"] = map[string]any{"environment": "sample"}
	}
	for _, f := range k.spec {
		if f.Required {
			spec[f.JSON] = k.types.sampleOf(f)
		}
	}
	for key, v := range sampleValues[k.Group.Name+"/"+k.Kind.Kind] {
		if key != "name" {
			spec[key] = v
		}
	}
	if o, ok := spec["owner"].(map[string]any); ok {
		owner, _ = o["name"].(string) // an extension kind's sample may sit on another owner
	}
	obj := map[string]any{
		"apiVersion": k.Group.Aztenant + "/v1alpha1",
		"kind":       k.Kind.Kind,
		"metadata":   map[string]any{"name": SampleName(k)},
		"spec":       spec,
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		panic(err) // maps of plain values always marshal
	}
	if len(k.types.writeOnly) > 0 {
		owner += fmt.Sprintf(" and the Secret %s (key password)", SampleSecret)
	}
	where := fmt.Sprintf("Its owner %s must exist in the same namespace", owner)
	if k.Subscription {
		where = "It lies in the subscription of the namespace's Identity"
	}
	head := fmt.Sprintf("# Code generated by kindgen. DO NOT EDIT.\n# A %s (%s), from %s %s, api-version %s.\n# %s; `kubectl explain %s.spec` documents every field.\n",
		k.Kind.Kind, k.ARMType, shortModule(k.Module.Path), k.Client, k.APIVersion, where, strings.ToLower(k.Kind.Kind))
	return append([]byte(head), out...)
}

// sampleOf is a value for a required field: an enum's first value, a number, an object
// with its own required fields.
func (g *types) sampleOf(f goField) any {
	t := strings.TrimPrefix(f.Type, "*")
	list := strings.HasPrefix(t, "[]")
	t = strings.TrimPrefix(t, "[]")
	var v any
	switch t {
	case "string":
		v = "example"
		for _, m := range f.Markers {
			if _, vals, ok := strings.Cut(m, "Enum="); ok {
				v = strings.Trim(strings.Split(vals, ";")[0], `"`)
			}
		}
	case "int32", "int64":
		v = 1
	case "bool":
		v = false
	default:
		obj := map[string]any{}
		for _, s := range g.structs {
			if s.Name == t {
				for _, sf := range s.Fields {
					if sf.Required {
						obj[sf.JSON] = g.sampleOf(sf)
					}
				}
			}
		}
		v = obj
	}
	if list {
		return []any{v}
	}
	return v
}

// kindsTable is examples/generated/README.md: every generated kind with its ARM type,
// api-version, how Azure answers its writes, what the emulator answers from, and its
// sample.
func kindsTable(kinds []*Kind, cells Cells) []byte {
	var b strings.Builder
	b.WriteString("<!-- Code generated by kindgen. DO NOT EDIT. -->\n# Generated kinds\n\n")
	fmt.Fprintf(&b, "The %d kinds `hack/kindgen` writes from the Azure SDK for Go (`api/kinds.yaml`), with ASO's group and\nkind names (`<group>.azure.com` there, `<group>.aztenant.io` here). Each has a sample here, which\n`TestGeneratedKindsLifecycle` (reconcilers/kinds) creates, changes in \"the portal\" and deletes.\n`kubectl explain` shows the SDK's field docs. On the demo (`make demo`, then its KUBECONFIG), the\nAPI server checks a sample without creating it:\n\n", len(kinds))
	b.WriteString("```sh\nbin/kubectl explain virtualnetworkssubnets.spec.addressPrefix --api-version=network.aztenant.io/v1alpha1\nbin/kubectl apply --dry-run=server -n team-a -f examples/generated/network/virtualnetwork.yaml\n```\n\n")
	b.WriteString("The answers column says what the emulator's answers to a PUT can be built from: the smallest of\nAzure's documented PUT examples at the pinned api-version (azure-rest-api-specs, read from the SDK\nmodule's example tests into `emulator/answers/`), or, where Azure documents none, an echo\nof the request. The ASO column says whether ASO v2.21 has a kind of the same group and name\n(`internal/asoconvert/testdata/aso-kinds.tsv`, from ASO's API reference), which `aztenant convert`\nmaps to this one; the risk column names the policy library's templates ([policy/library](../../policy/library))\nthat the example constraints ([examples/policy/constraints.yaml](../policy/constraints.yaml)) apply to the kind.\n\n")
	b.WriteString("| group | kind | owner | ARM type | api-version | create | delete | answers | ASO | risk templates | sample |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, k := range kinds {
		owner := "ResourceGroup"
		switch {
		case k.Owner != nil:
			owner = k.Owner.Kind.Kind
		case k.Subscription:
			owner = "(subscription)"
		case k.Extension:
			owner = "(any scope: " + k.Kind.Extension.Owners[0].Kind + ", ...)"
		}
		del := "with its parent"
		if k.Delete != nil {
			del = opShape(k.Delete)
		}
		key := k.Group.Name + "/" + k.Kind.Kind
		ans := "echo"
		if cells.Answers != nil {
			ans = cells.Answers(key)
		}
		aso := "—"
		if cells.ASO[key] {
			aso = k.Group.ASO + "/" + k.Kind.Kind
		}
		risks := "—"
		if r := cells.Risks[key]; len(r) > 0 {
			risks = strings.Join(r, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s | [%s](%s/%s.yaml) |\n", k.Group.Aztenant, k.Kind.Kind, owner, k.ARMType, k.APIVersion,
			opShape(k.Create), del, ans, aso, risks, strings.ToLower(k.Kind.Kind), k.Group.Dir(), strings.ToLower(k.Kind.Kind))
	}
	return []byte(b.String())
}
