package sharding

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// A namespace's bucket is fnv-32a % 64, the same on every replica and in
// every release: labels written once stay right.
func TestBucket(t *testing.T) {
	for _, ns := range []string{"a", "bench00", "tenant-with-a-long-name"} {
		if got := Bucket(ns); got != Bucket(ns) || got < 0 || got >= Buckets || BucketLabel(ns) != strconv.Itoa(got) {
			t.Errorf("Bucket(%q) = %d", ns, got)
		}
	}
	// fnv-32a("a") = 0xe40c292c; % 64 = 44.
	if got := Bucket("a"); got != 0xe40c292c%64 {
		t.Errorf("Bucket(a) = %d, want fnv-32a %% 64 = %d", got, 0xe40c292c%64)
	}
}

// Every bucket belongs to exactly one shard, for any N, and a shard's
// selector matches exactly its buckets' labels.
func TestSelectorPartitions(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 64} {
		seen := map[int]int{}
		for k := range n {
			sel, err := Selector([]int{k}, n)
			if err != nil {
				t.Fatal(err)
			}
			for b := range Buckets {
				if sel.Matches(labels.Set{LabelBucket: strconv.Itoa(b)}) {
					seen[b]++
					if ShardOfBucket(b, n) != k {
						t.Errorf("n=%d: shard %d selects bucket %d of shard %d", n, k, b, ShardOfBucket(b, n))
					}
				}
			}
			if sel.Matches(labels.Set{}) {
				t.Errorf("n=%d: shard %d selects unlabelled objects", n, k)
			}
		}
		for b := range Buckets {
			if seen[b] != 1 {
				t.Errorf("n=%d: bucket %d selected by %d shards", n, b, seen[b])
			}
		}
	}
	if sel, _ := Selector(nil, 4); sel.Matches(labels.Set{LabelBucket: "0"}) {
		t.Error("no shard selects something")
	}
	if !Unlabelled().Matches(labels.Set{"x": "y"}) || Unlabelled().Matches(labels.Set{LabelBucket: "3"}) {
		t.Error("Unlabelled selects the wrong objects")
	}
}

// Targets share N out evenly (within one), sum to N, and do not depend on
// the order members are listed in.
func TestTargets(t *testing.T) {
	for _, n := range []int{2, 4, 6, 64} {
		for live := 1; live <= 5; live++ {
			var members []string
			for i := range live {
				members = append(members, fmt.Sprintf("op-%d", i))
			}
			got := Targets(n, members)
			rev := slices.Clone(members)
			slices.Reverse(rev)
			again := Targets(n, rev)
			sum, lo, hi := 0, n, 0
			for _, m := range members {
				v := got[m]
				sum += v
				lo, hi = min(lo, v), max(hi, v)
				if again[m] != v {
					t.Errorf("n=%d live=%d: %s gets %d or %d by order", n, live, m, v, again[m])
				}
			}
			if sum != n || hi-lo > 1 {
				t.Errorf("n=%d live=%d: targets %v (sum %d)", n, live, got, sum)
			}
		}
	}
}

// preference is a permutation, different per identity.
func TestPreference(t *testing.T) {
	shards := []int{0, 1, 2, 3, 4, 5, 6, 7}
	a, b := preference("op-a", shards), preference("op-b", shards)
	if !slices.Equal(slices.Sorted(slices.Values(a)), shards) || !slices.Equal(slices.Sorted(slices.Values(b)), shards) {
		t.Fatalf("not permutations: %v %v", a, b)
	}
	if slices.Equal(a, b) {
		t.Errorf("two identities prefer the same order %v", a)
	}
}
