package emulator

import (
	"fmt"
	"net/http"
	"strings"
)

// providerNotFound is how a resource provider answers a GET of a nested resource that does
// not exist, where it answers in its own words rather than ARM's ResourceNotFound
// ("The Resource '…' under resource group '…' was not found."). Every entry cites a real
// answer; a provider without one answers ARM's (Microsoft.Sql databases do:
// Azure/azure-sdk-for-net#28730 quotes "The Resource 'Microsoft.Sql/servers/…/databases/…'
// under resource group '…' was not found."). The status is 404 in every case, which is
// what the operator and aztenant import go by (reconcilers/armclient, internal/azimport).
//
// Looked for and not found, so not added: Storage blob containers through ARM (every
// ContainerNotFound quoted is the blob service's data plane, in XML), Service Bus queues
// and topics (MessagingEntityNotFound is the messaging client's), Key Vault secrets
// (SecretNotFound is the vault's data plane; the kind is not emulated).
var providerNotFound = map[string]struct {
	code string
	// message is a template given an activity ID, when it holds a verb.
	message string
	source  string
}{
	"microsoft.apimanagement/service/apis": {"ResourceNotFound", "Api not found.",
		`Azure/apiops#643 and #494: GET management.azure.com/…/Microsoft.ApiManagement/service/…/apis/…: 404 {"error":{"code":"ResourceNotFound","message":"Api not found.","details":null}}`},
	"microsoft.documentdb/databaseaccounts/sqldatabases/containers": {"NotFound",
		"Message: {\"code\":\"NotFound\",\"message\":\"Message: {\\\"Errors\\\":[\\\"Resource Not Found\\\"]}\\r\\nActivityId: %s\"}",
		`Azure/azure-docs-powershell-samples#223 (review of cosmosdb/sql/ps-container-create-index-none.ps1): an ARM call on a Cosmos DB SQL container answered {"code":"NotFound","message":"Message: {\"code\":\"NotFound\",\"message\":\"Message: {\\\"Errors\\\":[\\\"Resource Not Found\\\"]}\\r\\nActivityId: …, ResourceType: Collection, OperationType: Read …`},
}

// providerNotFoundError is the provider's own 404 for a missing resource of typeKey, nil
// when it answers ARM's.
func providerNotFoundError(typeKey string) *apiError {
	nf, ok := providerNotFound[strings.ToLower(typeKey)]
	if !ok {
		return nil
	}
	msg := nf.message
	if strings.Contains(msg, "%s") {
		msg = fmt.Sprintf(msg, newGUID())
	}
	return &apiError{Status: http.StatusNotFound, Code: nf.code, Message: msg}
}
