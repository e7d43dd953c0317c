package fairqueue

// order is the workqueue.Queue storage: one FIFO per group and a ring of the
// groups that have items. The current group is served for up to its weight in
// consecutive items, then the turn passes on. client-go calls every method
// under its queue lock, so order needs no lock of its own, and group and
// weight functions must not block.
type order[T comparable] struct {
	group  func(T) string
	weight func(string) int

	groups map[string]*fifo[T]
	ring   []*fifo[T] // groups with items, in turn order
	cur    int        // index in ring of the group whose turn it is
	n      int
}

type fifo[T comparable] struct {
	name   string
	items  []T
	head   int
	credit int // items left in the current turn
}

func newOrder[T comparable](group func(T) string, weight func(string) int) *order[T] {
	return &order[T]{group: group, weight: weight, groups: map[string]*fifo[T]{}}
}

// Touch is called when a queued item is added again; it keeps its place, as
// in client-go's FIFO.
func (o *order[T]) Touch(T) {}

func (o *order[T]) Push(item T) {
	name := o.group(item)
	f := o.groups[name]
	if f == nil {
		f = &fifo[T]{name: name}
		o.groups[name] = f
		// A new group joins at the end of the round: everyone already
		// waiting gets their turn first, and it never waits more than one round.
		o.ring = append(o.ring, f)
	}
	f.items = append(f.items, item)
	o.n++
}

func (o *order[T]) Len() int { return o.n }

// Pop is only called when Len() > 0.
func (o *order[T]) Pop() T {
	f := o.ring[o.cur]
	if f.credit <= 0 {
		f.credit = max(o.weightOf(f.name), 1)
	}
	item := f.items[f.head]
	var zero T
	f.items[f.head] = zero // let the item be collected
	f.head++
	f.credit--
	o.n--
	if f.head == len(f.items) {
		// Drained: drop the group; the next group moves into index cur.
		delete(o.groups, f.name)
		copy(o.ring[o.cur:], o.ring[o.cur+1:])
		o.ring[len(o.ring)-1] = nil
		o.ring = o.ring[:len(o.ring)-1]
		if o.cur >= len(o.ring) {
			o.cur = 0
		}
		return item
	}
	if f.head > 64 && f.head*2 > len(f.items) {
		// Compact so a long-lived busy group does not grow without bound.
		f.items = append(f.items[:0], f.items[f.head:]...)
		f.head = 0
	}
	if f.credit == 0 {
		o.cur = (o.cur + 1) % len(o.ring)
	}
	return item
}

func (o *order[T]) weightOf(group string) int {
	if o.weight == nil {
		return 1
	}
	return o.weight(group)
}
