package emulator

import "strings"

// The public facts that examples alone do not establish, which answers from examples
// apply (answers_examples.go). Each entry cites its source; README.md ("Azure's
// answers") cites each operation's.

// cosmosSource is why Cosmos DB's create options are write-only.
const cosmosSource = "armcosmos v3.4.0 models.go: the create body's Options " +
	"\"corresponds to the headers sent with the request\"; cosmos-db/…/DocumentDB/stable/2025-10-15/examples/" +
	"CosmosDBSqlDatabaseCreateUpdate.json sends options and answers none"

// citedDrops are write-only values by ARM type and path: Azure takes them with a write
// and never answers them, though the SDK does not hold them for secrets.
var citedDrops = []AnswerTransform{
	// The 12 Cosmos DB types whose create properties carry CreateUpdateOptions
	// (armcosmos v3.4.0 models.go: …CreateUpdateProperties.Options).
	{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/storedProcedures", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/triggers", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/userDefinedFunctions", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/mongodbDatabases", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/mongodbDatabases/collections", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/cassandraKeyspaces", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/cassandraKeyspaces/tables", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/gremlinDatabases", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/gremlinDatabases/graphs", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	{Type: "Microsoft.DocumentDB/databaseAccounts/tables", Path: "properties.options", Op: OpDrop, Source: cosmosSource},
	// A web app's settings are read through POST …/config/appsettings/list, not its GET.
	{Type: "Microsoft.Web/sites", Path: "properties.siteConfig.appSettings", Op: OpDrop, Source: webSource},
	{Type: "Microsoft.Web/sites/slots", Path: "properties.siteConfig.appSettings", Op: OpDrop, Source: webSource},
}

// webSource is why a web app's settings are write-only in its GET.
const webSource = "Azure/azure-rest-api-specs#12104 (\"GET a WebApp returns no SiteConfig properties\", open); " +
	"Azure/azure-powershell#14877, the App Service team: \"SiteConfig is not part of Site API which is by design\"; " +
	"web/…/stable/2024-11-01/examples/CreateOrUpdateFunctionAppFlexConsumption.json sends siteConfig.appSettings and answers none"

// citedRewrites are the transforms that explain a rewrite of class case or spelling an
// example shows; answers from examples apply them. Other rewrites (class value or type)
// are never applied from examples; tests set them with SetAnswerTransforms.
var citedRewrites = []AnswerTransform{
	{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "location", Op: OpDisplayLocation,
		Source: "cosmos-db/…/DocumentDB/stable/2025-10-15/examples/CosmosDBDatabaseAccountCreateMin.json: location \"westus\" answered \"West US\""},
	{Type: "Microsoft.DocumentDB/databaseAccounts", Path: "properties.locations[].locationName", Op: OpDisplayLocation,
		Source: "cosmos-db/…/DocumentDB/stable/2025-10-15/examples/CosmosDBDatabaseAccountCreateMin.json: locationName \"southcentralus\" answered \"South Central US\""},
	{Type: "Microsoft.ApiManagement/service/apis/policies", Path: "properties.value", Op: OpReformatXML,
		Source: "apimanagement/…/stable/2024-05-01/examples/ApiManagementCreateApiPolicy.json: the policy XML answered re-indented with CRLF"},
	{Type: "Microsoft.KeyVault/vaults", Path: "properties.networkAcls.ipRules[].value", Op: OpCIDR,
		Source: "keyvault/…/Microsoft.KeyVault/stable/2024-11-01/examples/createVaultWithNetworkAcls.json: ipRules \"124.56.78.91\" answered \"124.56.78.91/32\", \"'10.91.4.0/24'\" as sent"},
	// Azure SQL names a vCore SKU <edition>_<family>, the capacity apart, whichever way
	// the request spelled it.
	{Type: "Microsoft.Sql/servers/databases", Path: "sku", Op: OpSQLSkuName,
		Source: "sql/…/Microsoft.Sql/preview/2021-05-01-preview/examples/CreateVCoreDatabaseByServiceObjective.json: sku name \"BC\" with family \"Gen4\" answered \"BC_Gen4\", tier \"BusinessCritical\"; CreateVCoreDatabaseBySkuNameCapacity.json: \"BC_Gen4\" with capacity 2 answered as sent"},
	{Type: "Microsoft.Sql/servers/elasticPools", Path: "sku", Op: OpSQLSkuName,
		Source: "sql/…/Microsoft.Sql/preview/2021-08-01-preview/examples/HyperscaleElasticPoolCreateOrUpdateSetHighAvailabilityReplicaCount.json: sku name \"HS_Gen5_4\" answered \"HS_Gen5\" with capacity 4, family \"Gen5\", tier \"Hyperscale\""},
}

// citedDrop is the cited drop of an ARM type at a schema path, if any.
func citedDrop(armType, path string) *AnswerTransform {
	for i, c := range citedDrops {
		if typeMatches(c.Type, armType) && c.Path == path {
			return &citedDrops[i]
		}
	}
	return nil
}

func typeMatches(a, b string) bool { return strings.EqualFold(a, b) }
