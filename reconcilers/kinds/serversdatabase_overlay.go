package kinds

import (
	"strings"

	sqlv1alpha1 "github.com/aztenant/aztenant/api/sql/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// An Azure SQL database's SKU is answered by its name <edition>_<family>, the capacity
// apart, whichever way the spec names it: {name: BC, family: Gen4, capacity: 2} is
// answered "BC_Gen4" (sql/…/Microsoft.Sql/preview/2021-05-01-preview/examples/
// CreateVCoreDatabaseByServiceObjective.json), the name with its capacity, "GP_Gen5_2",
// as "GP_Gen5". Both mean the spec's SKU: no difference, nothing to write again.
var _ = overlay(sqlv1alpha1.ServersDatabaseGroupKind, Overlay{
	Hooks: func(h *reconcilers.Hooks) { h.Equivalent = sqlSkuNameEquivalent },
})

// sqlSkuNameEquivalent accepts, at sku.name, the name Azure SQL answers for the one the
// spec gives: the edition alone answered with its family ("GP" as "GP_Gen5"), or the
// service objective, capacity included, answered without it ("HS_Gen5_4" as "HS_Gen5").
func sqlSkuNameEquivalent(path, desired, observed string) bool {
	if path != "sku.name" {
		return false
	}
	d, o := strings.ToLower(desired), strings.ToLower(observed)
	if rest, ok := strings.CutPrefix(o, d+"_"); ok && !strings.Contains(d, "_") {
		return rest != "" && !strings.Contains(rest, "_") && !isDigits(rest)
	}
	if rest, ok := strings.CutPrefix(d, o+"_"); ok {
		return isDigits(rest)
	}
	return false
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
