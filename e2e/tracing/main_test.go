package tracing_test

import (
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	testenv.Main(m)
}
