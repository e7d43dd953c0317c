package sharding

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

const (
	// Buckets is how many buckets namespaces hash into: enough for 64
	// shards, few enough for a readable label selector.
	Buckets = 64
	// LabelBucket holds an object's bucket (its namespace's), "0".."63".
	LabelBucket = "aztenant.io/shard-bucket"
)

// Bucket is the bucket of a namespace: fnv-32a(namespace) % Buckets.
func Bucket(namespace string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(namespace))
	return int(h.Sum32() % Buckets)
}

// BucketLabel is Bucket as the label's value.
func BucketLabel(namespace string) string { return strconv.Itoa(Bucket(namespace)) }

// ShardOfBucket is the shard of n owning bucket b.
func ShardOfBucket(b, n int) int { return b % n }

// ShardOf is the shard of n owning namespace's objects.
func ShardOf(namespace string, n int) int { return ShardOfBucket(Bucket(namespace), n) }

// BucketsOf lists the buckets the shards of n own, sorted.
func BucketsOf(shards []int, n int) []int {
	var out []int
	for b := range Buckets {
		if slices.Contains(shards, ShardOfBucket(b, n)) {
			out = append(out, b)
		}
	}
	return out
}

// Selector selects the objects of the shards of n: LabelBucket in (their
// buckets). No shard selects nothing.
func Selector(shards []int, n int) (labels.Selector, error) {
	bs := BucketsOf(shards, n)
	if len(bs) == 0 {
		return labels.Nothing(), nil
	}
	vals := make([]string, len(bs))
	for i, b := range bs {
		vals[i] = strconv.Itoa(b)
	}
	req, err := labels.NewRequirement(LabelBucket, selection.In, vals)
	if err != nil {
		return nil, fmt.Errorf("shard selector: %w", err)
	}
	return labels.NewSelector().Add(*req), nil
}

// Unlabelled selects the objects without LabelBucket, the Labeller's.
func Unlabelled() labels.Selector {
	req, err := labels.NewRequirement(LabelBucket, selection.DoesNotExist, nil)
	if err != nil {
		panic(err) // a constant, valid key
	}
	return labels.NewSelector().Add(*req)
}

// Targets is how many of n shards each live member should hold: members
// sorted by identity, the first n % len(members) get one more. Every replica
// computes the same from the same view.
func Targets(n int, members []string) map[string]int {
	sorted := slices.Clone(members)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]int, len(sorted))
	for i, m := range sorted {
		out[m] = n / len(sorted)
		if i < n%len(sorted) {
			out[m]++
		}
	}
	return out
}

// preference orders shards for identity to try (rendezvous hashing), so
// that replicas taking free shards at the same moment mostly try different
// ones.
func preference(identity string, shards []int) []int {
	out := slices.Clone(shards)
	score := func(k int) uint32 {
		h := fnv.New32a()
		_, _ = fmt.Fprintf(h, "%s/%d", identity, k)
		return h.Sum32()
	}
	slices.SortFunc(out, func(a, b int) int {
		sa, sb := score(a), score(b)
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return a - b
	})
	return out
}
