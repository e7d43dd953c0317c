// Command kindgen is aztenant's kind generator (issue 13). This first half reads: it loads
// the pinned Azure SDK for Go armXXX modules named by api/kinds.yaml and builds a model of
// each kind (hack/kindgen/model), which emitters of API types, CRDs, registration and the
// emulator's per-type facts will build on.
//
// It is its own Go module so that the SDK modules it reads never enter the operator's
// build list; hack/kindgen/go.mod pins their versions.
//
//	go -C hack/kindgen run . model -kind VirtualNetwork      # one kind's model as JSON
//	go -C hack/kindgen run . check                          # every kind: load, summarise
package main
