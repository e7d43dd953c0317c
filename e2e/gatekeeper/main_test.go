package gatekeeper

import (
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/aztenant/aztenant/internal/testenv"
)

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard()) // envtest's CRD installer logs through it
	testenv.Main(m)
}
