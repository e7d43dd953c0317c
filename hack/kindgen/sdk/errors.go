package sdk

import (
	"fmt"
	"strings"
)

// LoadError is a module that did not load or type-check.
type LoadError struct {
	Package  string
	Problems []string
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("loading %s: %s", e.Package, strings.Join(e.Problems, "; "))
}

// KindError is a configured kind the reader cannot build from its client.
type KindError struct {
	Kind    string
	Problem string
}

func (e *KindError) Error() string { return fmt.Sprintf("kind %s: %s", e.Kind, e.Problem) }
