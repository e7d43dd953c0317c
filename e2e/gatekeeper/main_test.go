package gatekeeper

import (
	"testing"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	// Without the chart's admission policies that reserve the provisioner
	// accounts (identity/reservation): the API server runs them before any
	// webhook, so they would deny first and hide Gatekeeper's verdict on the
	// library's reservedserviceaccount template.
	// The library's examples are of every kind.
	testenv.Main(m, testenv.WithoutReservation(), testenv.WithKinds(testenv.EveryKind))
}
