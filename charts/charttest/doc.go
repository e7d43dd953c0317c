// Package charttest tests the Helm chart in charts/aztenant: that its CRD
// copies match api/crds, that it lints strictly, that its schema refuses bad
// values, what it renders for combinations of values, and that it installs,
// upgrades and uninstalls on a real kube-apiserver (internal/testenv).
//
// It holds no code: run it with
//
//	AZTENANT_BIN_DIR=$PWD/bin go test -count=1 ./charts/...
package charttest
