// Package armclient makes the reconcilers' calls to Azure Resource Manager:
// generic by-ID GET, PUT, DELETE, POST actions and collection listings on an
// identity's azcore ARM client (its pipeline brings the bearer token, the
// retries, the budget and the telemetry), with raw JSON bodies so that no
// property unknown to an SDK model is lost. It owns the checks that keep the
// namespace's bearer token on the ARM endpoint: a resume token read from
// status and a listing's nextLink must name no other host. It knows nothing
// of Kubernetes objects or kinds; the engine (package reconcilers) decides
// what to call.
package armclient
