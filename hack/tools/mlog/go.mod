// Stands in for monis.app/mlog, which the Go module proxy refuses (403), when
// hack/tools/build.sh builds the azure-workload-identity webhook.
module monis.app/mlog

go 1.23

require github.com/go-logr/logr v1.4.2
