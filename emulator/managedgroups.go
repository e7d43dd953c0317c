package emulator

import (
	"net/http"
	"strings"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// Some resource providers create a resource group of their own for a resource
// (AKS's node resource group, Container Apps' infrastructure resource group),
// named by a property of the resource or by default, answer its name in the
// resource's GET, and delete it with the resource. ARM reports the resource
// as the group's managedBy.

// managedGroup is the name and subscription of a resource's managed group.
type managedGroup struct{ subscription, name string }

func (g managedGroup) id() string {
	return "/subscriptions/" + g.subscription + "/resourceGroups/" + g.name
}

// checkManagedGroup completes the property prop of a write with the group's
// name: the one the body asks for, or byDefault on create; it cannot change
// afterwards. mustBeNew refuses a group that exists already. sub is the
// subscription the group is created in.
func (w *writeRequest) checkManagedGroup(prop, sub string, byDefault func() string, mustBeNew bool) *apiError {
	asked := str(w.props, prop)
	if w.existing != nil {
		was := str(w.existing.props(), prop)
		if asked != "" && !strings.EqualFold(asked, was) {
			return badRequest("PropertyChangeNotAllowed", "Changing property '%s' is not allowed.", prop)
		}
		w.props[prop] = was
		return nil
	}
	if asked == "" {
		asked = byDefault()
	}
	if msg := checkResourceGroupName(asked); msg != "" {
		return badRequest("InvalidParameter", "The value of parameter %s is invalid: %s.", prop, msg)
	}
	if w.e.resources["/subscriptions/"+strings.ToLower(sub)] == nil {
		return armErr(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
	}
	if mustBeNew && w.e.lookupLocked(managedGroup{sub, asked}.id()) != nil {
		return badRequest("InvalidParameter", "The value of parameter %s is invalid: resource group '%s' already exists; specify the name of a new resource group.", prop, asked)
	}
	w.props[prop] = asked
	return nil
}

// ensureManagedGroupLocked creates g for owner unless it exists: a group
// that was there before is left as it is (and is not deleted with owner).
func (e *Emulator) ensureManagedGroupLocked(g managedGroup, location, owner string) {
	sub := e.resources["/subscriptions/"+strings.ToLower(g.subscription)]
	if sub == nil || g.name == "" || e.lookupLocked(g.id()) != nil {
		return
	}
	id := sub.id + "/resourceGroups/" + g.name
	rg := &resource{id: id, key: strings.ToLower(id), typ: "Microsoft.Resources/resourceGroups", parentKey: sub.key, body: map[string]any{
		"id": id, "name": g.name, "type": "Microsoft.Resources/resourceGroups", "location": location, "managedBy": owner,
		"properties": map[string]any{"provisioningState": opSucceeded},
	}}
	rg.refresh()
	e.insertLocked(rg)
}

// removeManagedGroupLocked deletes g, with what it holds, if owner manages it.
func (e *Emulator) removeManagedGroupLocked(g managedGroup, owner string) {
	if rg := e.lookupLocked(g.id()); rg != nil && strings.EqualFold(str(rg.body, "managedBy"), owner) {
		e.removeLocked(rg)
	}
}

// subscriptionOfID is the subscription of an ARM ID, "" when it names none.
func subscriptionOfID(id string) string {
	return armpath.Parse(id).Subscription()
}

// checkResourceGroupName applies ARM's rule for resource group names: 1 to
// 90 letters, digits, underscores, hyphens, periods and parentheses, not
// ending in a period
// (https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftresources).
func checkResourceGroupName(s string) string {
	if s == "" || len(s) > 90 {
		return "a resource group name has 1 to 90 characters"
	}
	if strings.HasSuffix(s, ".") {
		return "a resource group name cannot end in a period"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.()", r)) {
			return "a resource group name has only letters, digits, underscores, hyphens, periods and parentheses"
		}
	}
	return ""
}
