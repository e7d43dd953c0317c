package workloadidentity

import (
	"testing"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

// The package's API server runs the reservation's ValidatingAdmissionPolicies
// (testenv installs them by default).
func TestMain(m *testing.M) { testenv.Main(m) }
