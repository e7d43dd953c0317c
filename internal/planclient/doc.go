// Package planclient is the client side of `aztenant plan`: it dry-runs each aztenant
// object as the caller (so validation and admission answer as they would to an apply),
// then asks the operator about those the API server accepts through a Plan object it
// creates, waits for and deletes, and prints the answer. The CLI and the demo (which
// shows a plan) both use it; the operator's side is reconcilers/planning.
package planclient
