package pipeline

// List is a fan-out request's candidates: the catalog entries of a list
// request, or the servers logging/setLevel goes to. Each step narrows them
// before calling the next; send answers from what is left.
type List struct {
	Items []ListItem
}

// ListItem is one candidate.
type ListItem struct {
	Server string // the upstream it belongs to
	Item   string // the upstream's own name (tool, prompt), URI or URI template; "" for a server
	Name   string // the client-facing name
	// Permission is an ability's permission (read, write); "" for
	// everything else (docs/policy.md, abilities).
	Permission string
}

// Keep narrows the candidates to those keep accepts, in place.
func (l *List) Keep(keep func(ListItem) bool) {
	kept := l.Items[:0]
	for _, it := range l.Items {
		if keep(it) {
			kept = append(kept, it)
		}
	}
	clear(l.Items[len(kept):])
	l.Items = kept
}
