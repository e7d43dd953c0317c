//go:build kindgen_pins

// This file is never built. It imports every SDK module the config names, so that
// `go mod tidy` keeps them in go.mod (where their versions are pinned) although no built
// code imports them: the reader loads them as source.
package main

import (
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/apimanagement/armapimanagement/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/appconfiguration/armappconfiguration/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/appcontainers/armappcontainers/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/applicationinsights/armapplicationinsights"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/appservice/armappservice/v5"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/cdn/armcdn/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/cognitiveservices/armcognitiveservices/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerinstance/armcontainerinstance/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerregistry/armcontainerregistry/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v8"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/cosmos/armcosmos/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dnsresolver/armdnsresolver"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/eventgrid/armeventgrid/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/eventhub/armeventhub"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/frontdoor/armfrontdoor"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/keyvault/armkeyvault"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/machinelearning/armmachinelearning/v4"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/monitor/armmonitor"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/mysql/armmysqlflexibleservers/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/operationalinsights/armoperationalinsights/v2"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/postgresql/armpostgresqlflexibleservers/v5"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/redis/armredis/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/search/armsearch"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/servicebus/armservicebus"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/signalr/armsignalr"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/sql/armsql"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/storage/armstorage/v3"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/trafficmanager/armtrafficmanager"
	_ "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/webpubsub/armwebpubsub"
)
