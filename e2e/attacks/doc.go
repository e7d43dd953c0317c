// Package attacks is the attack suite: one test per way a tenant might try to
// act with another namespace's Azure identity, reach another tenant's
// resources, escalate its own rights or exhaust the shared operator. Each
// test runs the real operator against the emulator and a real API server
// (internal/testing/stacktest) with an attacker and a victim namespace, and asserts
// both the denial a user sees (the object's Ready reason and a message
// naming the problem, or the API server's validation error) and, from the
// emulator's audit log, that no ARM call was made with any principal but the
// attacker's own and, where the attack is stopped before Azure, no ARM write
// at all. README.md lists the cases and the layer that stops each.
package attacks
