package sdk

import (
	"strings"
	"unicode"
)

// derivedKind is the kind name ASO's generator gives an ARM type: every type segment
// after the namespace, first letter upper-cased, all plural but the last, which is made
// singular (Microsoft.Network/virtualNetworks/subnets -> VirtualNetworksSubnet). ASO
// renames a few (record sets, Cosmos DB's SQL types); the config then says so by
// naming the kind differently.
func derivedKind(armType string) string {
	parts := strings.Split(armType, "/")[1:]
	var b strings.Builder
	for i, p := range parts {
		if i == len(parts)-1 {
			p = singular(p)
		}
		r := []rune(p)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

func singular(s string) string {
	l := strings.ToLower(s)
	switch {
	case strings.HasSuffix(l, "is"): // redis
		return s
	case strings.HasSuffix(l, "ies"):
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(l, "sses"), strings.HasSuffix(l, "xes"), strings.HasSuffix(l, "ches"), strings.HasSuffix(l, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(l, "s"):
		return s[:len(s)-1]
	}
	return s
}
