package tenancy

import (
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/config"
)

// configController lets several managers in one test binary register
// controllers with the same names.
func configController() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true)}
}
