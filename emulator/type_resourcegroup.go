package emulator

import (
	"net/http"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
)

// resourceGroupBehaviour: location is required and immutable (by name or display name,
// which ARM takes alike); deletion is a long-running operation (Location header) that
// cascades to everything in the group.
func resourceGroupBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.Resources/resourceGroups",
		lro:      LROConfig{Write: LROSync, Delete: LROLocation},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			if w.existing != nil {
				if old := str(w.existing.body, "location"); old != "" && azurev1alpha1.NormalizeLocation(old) != azurev1alpha1.NormalizeLocation(w.location()) {
					return armErr(http.StatusConflict, "InvalidResourceGroupLocation",
						"Invalid resource group location '%s'. The Resource group already exists in location '%s'.", w.location(), old)
				}
			}
			return nil
		},
	}
}
