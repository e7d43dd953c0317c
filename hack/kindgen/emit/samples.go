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
	"dbformysql/FlexibleServer": {"name": "sample-mysql-01", "administratorLogin": "mysqladmin", "administratorLoginPassword": adminPassword,
		"version": "8.0.21", "sku": map[string]any{"name": "Standard_B1ms", "tier": "Burstable"}, "storage": map[string]any{"storageSizeGB": 20}},
	"dbformysql/FlexibleServersDatabase":     {"charset": "utf8mb4", "collation": "utf8mb4_0900_ai_ci"},
	"dbformysql/FlexibleServersFirewallRule": {"startIpAddress": "10.0.0.1", "endIpAddress": "10.0.0.1"},
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
	"storage/StorageAccount": {"name": "samplestorage01"},
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
	"cache/Redis":                               {"name": "sample-redis"},
	"containerservice/ManagedCluster":           {"name": "sample-aks"},
	"containerservice/ManagedClustersAgentPool": {"name": "user1", "count": 2, "vmSize": "Standard_D4s_v5", "mode": "User", "osType": "Linux"},
	"cache/RedisFirewallRule":                   {"startIP": "10.0.0.1", "endIP": "10.0.0.10"},
	"containerregistry/Registry":                {"name": "sampleregistry01", "sku": map[string]any{"name": "Basic"}, "adminUserEnabled": false},
}

// SampleSecret is the Secret the samples' write-only values (administrator passwords)
// come from; it must exist in the samples' namespace.
const SampleSecret = "sample-admin-password"

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
	spec["owner"] = map[string]any{"name": owner}
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
	head := fmt.Sprintf("# Code generated by kindgen. DO NOT EDIT.\n# A %s (%s), from %s %s, api-version %s.\n# Its owner %s must exist in the same namespace; `kubectl explain %s.spec` documents every field.\n",
		k.Kind.Kind, k.ARMType, shortModule(k.Module.Path), k.Client, k.APIVersion, owner, strings.ToLower(k.Kind.Kind))
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
// api-version, how Azure answers its writes, and its sample.
func kindsTable(kinds []*Kind) []byte {
	var b strings.Builder
	b.WriteString("<!-- Code generated by kindgen. DO NOT EDIT. -->\n# Generated kinds\n\n")
	fmt.Fprintf(&b, "The %d kinds `hack/kindgen` writes from the Azure SDK for Go (`api/kinds.yaml`), with ASO's group and\nkind names (`<group>.azure.com` there, `<group>.aztenant.io` here). Each has a sample here, which\n`TestGeneratedKindsLifecycle` (reconcilers/kinds) creates, changes in \"the portal\" and deletes.\n`kubectl explain` shows the SDK's field docs. On the demo (`make demo`, then its KUBECONFIG), the\nAPI server checks a sample without creating it:\n\n", len(kinds))
	b.WriteString("```sh\nbin/kubectl explain virtualnetworkssubnets.spec.addressPrefix --api-version=network.aztenant.io/v1alpha1\nbin/kubectl apply --dry-run=server -n team-a -f examples/generated/network/virtualnetwork.yaml\n```\n\n")
	b.WriteString("| group | kind | owner | ARM type | api-version | create | delete | sample |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, k := range kinds {
		owner := "ResourceGroup"
		if k.Owner != nil {
			owner = k.Owner.Kind.Kind
		}
		del := "with its parent"
		if k.Delete != nil {
			del = opShape(k.Delete)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s | %s | [%s](%s/%s.yaml) |\n", k.Group.Aztenant, k.Kind.Kind, owner, k.ARMType, k.APIVersion,
			opShape(k.Create), del, strings.ToLower(k.Kind.Kind), k.Group.Name, strings.ToLower(k.Kind.Kind))
	}
	return []byte(b.String())
}
