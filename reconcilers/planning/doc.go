// Package planning answers Plans (plan.aztenant.io): for each object of a Plan,
// what reconciling it would do in Azure (reconcilers.Reconciler.Preview), read
// with the namespace's own identity, writing nothing in Azure and nothing in the
// cluster but the Plan's status. `aztenant plan` creates a Plan, waits for the
// answer and deletes it; a Plan left behind is deleted an hour after it was
// answered.
package planning
