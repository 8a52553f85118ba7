// Package toolsearch ranks tools for a text query: the index behind a
// search profile's search_tools (docs/profiles.md). It is bleve's BM25 over
// each tool's name (and its words), description, parameter names and
// descriptions and server name, with the CJK analyzer (width folding,
// lower case, bigrams of CJK runs) so that Japanese text is found as well
// as English. The index lives in memory and is rebuilt whole when the
// catalog changes; a query never waits for a rebuild.
package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Tool is one tool to index: Name is the client-facing name (the index's
// document id); Raw its definition as the client would list it.
type Tool struct {
	Name   string
	Server string
	Raw    json.RawMessage
}

// Caps (docs/limits.md, "Profiles").
const (
	// MaxQueryLen bounds a query; a longer one is refused.
	MaxQueryLen = 1024
	// MaxLimit bounds how many hits one search returns.
	MaxLimit = 50
	// maxFieldLen bounds what one tool contributes to the index per field,
	// so one upstream's huge description cannot make rebuilds slow.
	maxFieldLen = 16 << 10
)

// document is what bleve indexes of a tool.
type document struct {
	Name        string `json:"name"`
	Words       string `json:"words"` // the name split into words: get_weather, getWeather → get weather
	Description string `json:"description"`
	Params      string `json:"params"` // parameter names, their words and descriptions
	Server      string `json:"server"`
}

// Field boosts: a word of the name says more than one of a description.
var boosts = map[string]float64{"name": 4, "words": 3, "server": 2, "description": 1, "params": 1}

// Index is a built, read-only index.
type Index struct {
	idx bleve.Index
	n   int
}

// Build indexes tools.
func Build(tools []Tool) (*Index, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = cjk.AnalyzerName
	doc := bleve.NewDocumentStaticMapping()
	for field := range boosts {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = cjk.AnalyzerName
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(field, fm)
	}
	m.DefaultMapping = doc
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("tool search: new index: %w", err)
	}
	b := idx.NewBatch()
	for _, t := range tools {
		if err := b.Index(t.Name, toDocument(t)); err != nil {
			_ = idx.Close()
			return nil, fmt.Errorf("tool search: index %q: %w", t.Name, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("tool search: build: %w", err)
	}
	return &Index{idx: idx, n: len(tools)}, nil
}

// Len is the number of tools indexed.
func (x *Index) Len() int { return x.n }

// Close frees the index.
func (x *Index) Close() error { return x.idx.Close() }

func toDocument(t Tool) document {
	var def struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		InputSchema struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Title       string `json:"title"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	_ = json.Unmarshal(t.Raw, &def) // a tool with an odd definition is still found by name
	var params strings.Builder
	for name, p := range def.InputSchema.Properties {
		params.WriteString(name + " " + words(name) + " " + p.Title + " " + p.Description + "\n")
	}
	return document{
		Name:        t.Name,
		Words:       words(t.Name),
		Description: clip(def.Title + " " + def.Description),
		Params:      clip(params.String()),
		Server:      t.Server + " " + words(t.Server),
	}
}

func clip(s string) string {
	if len(s) > maxFieldLen {
		return s[:maxFieldLen]
	}
	return s
}

// words splits a name into lower-case words at separators and case
// changes: "server__getWeather-now" → "server get weather now".
func words(name string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || unicode.IsSpace(r):
			b.WriteByte(' ')
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	return b.String()
}

// Hit is one tool found, best first.
type Hit struct {
	Name  string
	Score float64
}

// Search returns up to limit tools matching q, best first. keep, if set,
// is asked about each batch of candidates and returns those the caller may
// see; the others never take a place in the top limit. An empty query
// finds nothing.
func (x *Index) Search(ctx context.Context, q string, limit int, keep func(names []string) map[string]bool) ([]Hit, error) {
	if len(q) > MaxQueryLen {
		return nil, fmt.Errorf("the query has %d bytes, more than the cap of %d", len(q), MaxQueryLen)
	}
	if limit <= 0 || limit > MaxLimit {
		limit = MaxLimit
	}
	q = strings.TrimSpace(q)
	if q == "" || x.n == 0 {
		return nil, nil
	}
	text := q + " " + words(q)
	var disj []query.Query
	for field, boost := range boosts {
		mq := bleve.NewMatchQuery(text)
		mq.SetField(field)
		mq.SetBoost(boost)
		disj = append(disj, mq)
	}
	// Ask for more than limit when some hits may be dropped: a caller's
	// scope rarely drops most of the best matches.
	size := limit
	if keep != nil {
		size = limit * 4
	}
	var out []Hit
	for from := 0; len(out) < limit && from < x.n; from += size {
		req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(disj...), size, from, false)
		res, err := x.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("tool search: %w", err)
		}
		var kept map[string]bool
		if keep != nil {
			names := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				names[i] = h.ID
			}
			kept = keep(names)
		}
		for _, h := range res.Hits {
			if keep == nil || kept[h.ID] {
				out = append(out, Hit{Name: h.ID, Score: h.Score})
				if len(out) == limit {
					break
				}
			}
		}
		if len(res.Hits) < size {
			break
		}
	}
	return out, nil
}
