package kinds

import (
	sqlv1alpha1 "github.com/aztenant/aztenant/api/sql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// An Azure SQL elastic pool's SKU is answered as a database's is (serversdatabase_overlay.go):
// "HS_Gen5_4" as "HS_Gen5" with capacity 4 (sql/…/Microsoft.Sql/preview/2021-08-01-preview/
// examples/HyperscaleElasticPoolCreateOrUpdateSetHighAvailabilityReplicaCount.json).
var _ = overlay(sqlv1alpha1.ServersElasticPoolGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.Equivalent = sqlSkuNameEquivalent },
})
