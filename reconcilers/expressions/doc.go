// Package expressions compiles and evaluates the CEL expressions users write
// in spec.operatorSpec.secretExpressions and configMapExpressions, and turns
// them into the data of the Secrets and ConfigMaps a resource owns.
//
// It owns:
//   - the CEL environment: the only inputs an expression has are `self` (the
//     resource as unstructured JSON: metadata, spec, status) and, for secret
//     expressions only, `secret` (the kind's secret outputs, such as access
//     keys). CEL has no I/O: no function reads files, the network, the clock
//     or other Kubernetes objects, so an expression cannot read another Secret
//     by construction. A configMap expression that names `secret` fails to
//     compile, so secret values never reach a ConfigMap;
//   - the safety limits: a maximum expression length, a compile-time estimate
//     of the worst-case cost, a runtime cost limit per evaluation, and a
//     timeout honoured by comprehensions (the only construct that loops);
//   - a bounded LRU cache so each (expression, secret) pair compiles once;
//   - the typed errors (*CompileError, *EvalError) whose texts go into the
//     object's conditions, and the checks on results: a destination with a key
//     takes a string, one without takes a map(string, string), and no two
//     expressions may write the same key of the same Secret or ConfigMap.
//
// It does not write anything: Apply returns destination name -> key -> value
// and the reconciler has the objects written (reconcilers/export.go, by
// package reconcilers/exports).
package expressions
