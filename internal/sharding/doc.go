// Package sharding shares the namespaces out across operator replicas
// (--shards=N, N > 1).
//
// It owns four things:
//
//   - The assignment every replica can compute: a namespace's bucket is
//     fnv-32a(namespace) % Buckets, written as the label LabelBucket on every
//     aztenant namespaced object; shard k of N owns the buckets b with
//     b % N == k. A replica caches the aztenant kinds through the set-based
//     selector Selector(shards, N), so it holds only its share, and N can
//     change without relabelling.
//   - The Labeller, which the holder of shard 0 runs (internal/operator):
//     metadata-only watches of each installed aztenant namespaced kind
//     restricted to objects without the label (nearly nothing in steady
//     state), patching the bucket in for the buckets Owns accepts.
//   - The Coordinator: one coordination.k8s.io Lease per shard
//     (<prefix>-shard-<k>) and one per replica (<prefix>-member-<identity>),
//     written with client-go's LeaderElectionRecord. Each replica aims at its
//     Targets share of the shards among the live members, takes free or
//     expired shards, and hands extras back only after its work on them
//     stopped (Work). A shard whose renewal is older than the renew deadline
//     calls Lost, which exits the process before the lease can expire, so
//     two replicas never act on one namespace.
//   - Its metrics: aztenant_shards_held and aztenant_shard_cached_objects.
//
// Expiry follows client-go's leader election: a lease counts as expired
// once its record has not changed, as seen on this replica's clock, for its
// duration; clocks are never compared across replicas.
//
// The manager restarts that a change of shards causes, and what runs on
// which replica, are internal/operator's (sharded.go).
package sharding
