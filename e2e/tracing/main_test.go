package tracing_test

import (
	"testing"

	"github.com/aztenant/aztenant/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m)
}
