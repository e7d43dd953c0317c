package emit

// Wave lists the kinds generated now, as group/Kind keys of api/kinds.yaml, parents before
// children. The other non-existing kinds of the config wait, each for a reason:
//
//   - network/VirtualNetworksVirtualNetworkPeering, PrivateEndpoint(s…), NatGateway,
//     PublicIPPrefix, NetworkInterface: their specs are mostly references to other resources
//     (remote networks, subnets, private link services); they wait for object references
//     (today a reference is an ARM ID string).
//   - the other private and public DNS record kinds: one client serves them all through a
//     fixed recordType; A records prove the pattern, the others are one line each here.
//   - servicebus subscriptions and rules, eventhub consumer groups: three levels deep,
//     they wait for the lifecycle test to cover grand-children of a generated kind.
//   - sql, documentdb, dbformysql: write-only administrator passwords, which need the
//     Secret-reference emitter (Resolver); cosmos's SQL resources wrap their properties in
//     a resource/options envelope the flattening does not model yet.
//   - appconfiguration, insights, containerservice agent pools, redis firewall rules,
//     storage sub-services: next wave; agent pools and firewall rules extend hand-written
//     kinds that move onto the generator first.
var Wave = []string{
	"network/VirtualNetwork",
	"network/VirtualNetworksSubnet",
	"network/VirtualNetworksVirtualNetworkPeering",
	"network/NetworkSecurityGroup",
	"network/NetworkSecurityGroupsSecurityRule",
	"network/ApplicationSecurityGroup",
	"network/PublicIPAddress",
	"network/PublicIPPrefix",
	"network/NatGateway",
	"network/NetworkInterface",
	"network/RouteTable",
	"network/RouteTablesRoute",
	"network/PrivateDnsZone",
	"network/PrivateDnsZonesVirtualNetworkLink",
	"network/PrivateDnsZonesARecord",
	"network/PrivateDnsZonesAAAARecord",
	"network/PrivateDnsZonesCNAMERecord",
	"network/PrivateDnsZonesMXRecord",
	"network/PrivateDnsZonesPTRRecord",
	"network/PrivateDnsZonesSRVRecord",
	"network/PrivateDnsZonesTXTRecord",
	"network/DnsZone",
	"network/DnsZonesARecord",
	"network/DnsZonesAAAARecord",
	"network/DnsZonesCAARecord",
	"network/DnsZonesCNAMERecord",
	"network/DnsZonesMXRecord",
	"network/DnsZonesNSRecord",
	"network/DnsZonesPTRRecord",
	"network/DnsZonesSRVRecord",
	"network/DnsZonesTXTRecord",
	"keyvault/Vault",
	"network/PrivateEndpoint",
	"network/PrivateEndpointsPrivateDnsZoneGroup",
	"servicebus/Namespace",
	"servicebus/NamespacesQueue",
	"servicebus/NamespacesTopic",
	"servicebus/NamespacesTopicsSubscription",
	"servicebus/NamespacesTopicsSubscriptionsRule",
	"eventhub/Namespace",
	"eventhub/NamespacesEventhub",
	"eventhub/NamespacesEventhubsConsumerGroup",
	"operationalinsights/Workspace",
	"containerregistry/Registry",
	"storage/StorageAccountsBlobService",
	"storage/StorageAccountsQueueService",
	"storage/StorageAccountsQueueServicesQueue",
	"storage/StorageAccountsTableService",
	"storage/StorageAccountsTableServicesTable",
	"storage/StorageAccountsFileService",
	"storage/StorageAccountsFileServicesShare",
	"storage/StorageAccountsManagementPolicy",
	"cache/RedisFirewallRule",
	"appconfiguration/ConfigurationStore",
	"insights/Component",
	"sql/Server",
	"sql/ServersDatabase",
	"sql/ServersFirewallRule",
	"dbformysql/FlexibleServer",
	"dbformysql/FlexibleServersDatabase",
	"dbformysql/FlexibleServersFirewallRule",
	"documentdb/DatabaseAccount",
	"documentdb/SqlDatabase",
	"documentdb/SqlDatabaseContainer",
}
