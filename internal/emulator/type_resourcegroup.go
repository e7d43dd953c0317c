package emulator

import "net/http"

// resourceGroupBehaviour: location is required and immutable; deletion is a long-running
// operation (Location header) that cascades to everything in the group.
func resourceGroupBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.Resources/resourceGroups",
		lro:      LROConfig{Write: LROSync, Delete: LROLocation},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			if w.existing != nil {
				if old := str(w.existing.body, "location"); old != "" && old != w.location() {
					return armErr(http.StatusConflict, "InvalidResourceGroupLocation",
						"Invalid resource group location '%s'. The Resource group already exists in location '%s'.", w.location(), old)
				}
			}
			return nil
		},
	}
}
