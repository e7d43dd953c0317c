package emulator

import (
	"net/http"
	"strings"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// listTenants answers GET /tenants as ARM does: the tenants the caller
// belongs to (here, its token's), for `az account tenant list` and clients
// that look up a tenant's default domain.
func (e *Emulator) listTenants(w http.ResponseWriter, c *caller) *apiError {
	e.mu.RLock()
	t := e.tenants[strings.ToLower(c.tid)]
	e.mu.RUnlock()
	var value []any
	if t != nil {
		name := t.DisplayName
		if name == "" {
			name = t.ID
		}
		value = append(value, map[string]any{
			"id": "/tenants/" + t.ID, "tenantId": t.ID, "displayName": name, "countryCode": "US",
			"tenantCategory": "Home", "tenantType": "AAD",
			"defaultDomain": strings.ReplaceAll(strings.ToLower(t.ID), "-", "") + ".onmicrosoft.com",
			"domains":       []string{strings.ReplaceAll(strings.ToLower(t.ID), "-", "") + ".onmicrosoft.com"},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": value})
	return nil
}

// listLocations answers GET /subscriptions/{s}/locations (`az account
// list-locations`) with the public cloud's regions of the product's one
// location list, for any principal with a role somewhere in the
// subscription, as ARM does.
func (e *Emulator) listLocations(w http.ResponseWriter, c *caller, sub string) *apiError {
	e.mu.RLock()
	known := e.lookupLocked("/subscriptions/"+sub) != nil
	reaches := e.reachesSubscriptionLocked(c, sub)
	e.mu.RUnlock()
	switch {
	case !known:
		return armErr(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
	case !reaches:
		return armErr(http.StatusForbidden, "AuthorizationFailed",
			"The client '%s' with object id '%s' does not have authorization to perform action 'Microsoft.Resources/subscriptions/locations/read' over scope '/subscriptions/%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
			c.appid, c.oid, sub)
	}
	var value []any
	for _, l := range azurev1alpha1.Locations {
		if !publicCloudLocation(l.Name) {
			continue
		}
		value = append(value, map[string]any{
			"id": "/subscriptions/" + sub + "/locations/" + l.Name, "name": l.Name, "type": "Region",
			"displayName": l.DisplayName, "regionalDisplayName": l.DisplayName,
			"metadata": map[string]any{"regionType": "Physical"},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": value})
	return nil
}

// publicCloudLocation leaves out the US Government and China clouds'
// regions and "global", which the public cloud's list does not show.
func publicCloudLocation(name string) bool {
	return name != "global" && !strings.HasPrefix(name, "usgov") && !strings.HasPrefix(name, "usdod") && !strings.HasPrefix(name, "china")
}

// reachesSubscriptionLocked reports whether the caller holds any role at the
// subscription or below. Caller holds e.mu.
func (e *Emulator) reachesSubscriptionLocked(c *caller, sub string) bool {
	prefix := "/subscriptions/" + strings.ToLower(sub)
	for _, g := range e.grants[strings.ToLower(c.oid)] {
		if g.scopeKey == "/" || g.scopeKey == prefix || strings.HasPrefix(g.scopeKey, prefix+"/") {
			return true
		}
	}
	return false
}
