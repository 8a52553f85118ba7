package filelimit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/lexer"

	"github.com/mcp-router/mcp-router/internal/testbombs"
)

var testLimits = Limits{What: "test file"}

// The ladder is refused at the alias where the expansion passes the cap,
// with its line and column, having cost a few megabytes; the old path
// (go-yaml's decoder, then anything that walks the value) expands it to
// 9^9 strings.
func TestAliasLadderIsRefusedBeforeDecoding(t *testing.T) {
	src := []byte(testbombs.Policy())
	var err error
	start := time.Now()
	alloc := testbombs.Allocated(func() { _, err = testLimits.ParseYAML(context.Background(), src) })
	took := time.Since(start)
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, ErrAliasExpansion) {
		t.Fatalf("err = %v", err)
	}
	if fe.Line < 9 || fe.Line > 17 || fe.Column == 0 {
		t.Errorf("refused at %d:%d, want an alias of the ladder (lines 9-17)", fe.Line, fe.Column)
	}
	if !strings.Contains(err.Error(), "alias") || !strings.Contains(err.Error(), "docs/limits.md") {
		t.Errorf("the error does not name the cap: %v", err)
	}
	t.Logf("%d-byte ladder refused in %s, %d KB allocated: %v", len(src), took, alloc>>10, err)
	if alloc > 32<<20 {
		t.Errorf("refusing the ladder allocated %d MB", alloc>>20)
	}
}

// A file that reuses its anchors as people do is not refused.
func TestAliasesWithinTheCapLoad(t *testing.T) {
	src := "base: &base {type: object, properties: {a: {type: string}}}\n" +
		"one: *base\ntwo: *base\nthree: {<<: *base, title: three}\n" +
		testbombs.Ladder("", 3, 9) // 9^4 = 6561 strings: under the floor
	f, err := testLimits.ParseYAML(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.NodeToValue(f.Docs[0].Body, &v); err != nil {
		t.Fatal(err)
	}
	if len(v["l3"].([]any)) != 9 {
		t.Errorf("l3 = %v", v["l3"])
	}
}

// An alias inside its own anchor is not a loop for the count.
func TestSelfAliasIsCountedOnce(t *testing.T) {
	if _, err := testLimits.ParseYAML(context.Background(), []byte("a: &a [1, *a]\n")); err != nil && errors.Is(err, ErrAliasExpansion) {
		t.Fatal(err)
	}
}

func TestYAMLCaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		cap  error // nil: refused by YAML's own rule
		line int
	}{
		{"deep flow", testbombs.FlowYAML(30_000), ErrTooDeep, 1},
		{"deep block sequence", testbombs.BlockYAML(30_000), ErrTooDeep, 1},
		{"deep indentation", testbombs.IndentYAML(1000), ErrTooDeep, DefaultMaxDepth + 1},
		{"many keys", testbombs.KeysYAML(30_000), ErrTooManyKeys, DefaultMaxKeys + 1},
		{"many words", "[" + strings.Repeat("x,", 150_000) + "]\n", ErrTooManyNodes, 1},
		{"anchors in a row", testbombs.PropertiesYAML(20_000), nil, 1},
		{"huge", "a: " + testbombs.Scalar(2<<20), ErrTooLarge, 0},
		{"deep once expanded", "a: &a " + testbombs.FlowYAML(40) + "\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n", ErrTooDeep, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			start := time.Now()
			alloc := testbombs.Allocated(func() { _, err = testLimits.ParseYAML(context.Background(), []byte(tc.src)) })
			t.Logf("%d bytes refused in %s, %d KB allocated: %.200v", len(tc.src), time.Since(start), alloc>>10, err)
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v", err)
			}
			if tc.cap != nil && !errors.Is(err, tc.cap) {
				t.Fatalf("err = %v, want the %v", err, tc.cap)
			}
			if fe.Line != tc.line {
				t.Errorf("at line %d, want %d", fe.Line, tc.line)
			}
			if alloc > 128<<20 {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
		})
	}
}

// Files as people write them pass: indentation, sequences of mappings,
// flow collections, comments, several documents.
func TestOrdinaryYAMLPasses(t *testing.T) {
	for _, src := range []string{
		"", "# nothing\n", "a: 1\n",
		"policies:\n  - name: a\n    match:\n      tools: [x, y]\n    limit: {requests_per_minute: 5}\n  - name: b\n    tools: {hide: [z]}\n",
		"a:\n- x\n- y\nb:\n- z\nc: 1\n",
		"? complex key\n: value\n",
		"a: !!str 1\nb: &x !!map {c: d}\nc: *x\n",
		"---\na: 1\n---\nb: 2\n",
		testbombs.IndentYAML(DefaultMaxDepth - 1),
		testbombs.KeysYAML(DefaultMaxKeys),
	} {
		if _, err := testLimits.ParseYAML(context.Background(), []byte(src)); err != nil {
			t.Errorf("%.60q: %v", src, err)
		}
	}
}

func TestJSONDepth(t *testing.T) {
	if err := testLimits.CheckJSON([]byte(testbombs.JSON(500_000))); !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), "1:65:") {
		t.Errorf("deep JSON: %v", err)
	}
	ok := `{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "b\"[[[": [1, {"c": null}]} // [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[` +
		"\n/* " + strings.Repeat("{", 100) + " */"
	if err := testLimits.CheckJSON([]byte(ok)); err != nil {
		t.Errorf("brackets in strings and comments counted: %v", err)
	}
	if err := testLimits.CheckJSON([]byte(testbombs.JSON(DefaultMaxDepth))); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	if err := testLimits.CheckJSON([]byte(`"` + strings.Repeat("x", 2<<20) + `"`)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge: %v", err)
	}
}

// A FIFO, a device and a directory are refused at once (the FIFO has no
// writer: a plain open would wait for one forever), and so is a file over
// the cap, before it is read.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "policy.yaml")
	if err := testbombs.MakeFIFO(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		cap  error
		want string
	}{
		{fifo, ErrNotRegular, "named pipe"},
		{"/dev/zero", ErrNotRegular, "device"},
		{dir, ErrNotRegular, "directory"},
		{big, ErrTooLarge, "the test file is 2097152 bytes, over 1 MiB"},
	} {
		done := make(chan error, 1)
		go func() {
			_, _, err := testLimits.ReadFile(tc.path)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, tc.cap) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v", tc.path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ReadFile blocked", tc.path)
		}
	}
	if _, _, err := testLimits.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestReadAllStopsAtTheCap(t *testing.T) {
	l := Limits{What: "hook script", MaxBytes: 10}
	if _, err := l.ReadAll(strings.NewReader(strings.Repeat("x", 11)), "stdin"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "stdin is larger than 10 bytes") {
		t.Errorf("err = %v", err)
	}
	if b, err := l.ReadAll(strings.NewReader("0123456789"), "stdin"); err != nil || len(b) != 10 {
		t.Errorf("%q, %v", b, err)
	}
}

// Within returns at the deadline and at once when its context ends, while
// the parse it gave up on goes on.
func TestWithinReturnsAtTheDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := func(context.Context) (int, error) { <-release; return 1, nil }
	start := time.Now()
	_, err := Within(context.Background(), Limits{What: "policy file", Deadline: 50 * time.Millisecond}, slow)
	if !errors.Is(err, ErrDeadline) || !strings.Contains(err.Error(), "longer than 50ms") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("returned after %s", time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Within(ctx, Limits{}, slow); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if v, err := Within(context.Background(), Limits{}, func(context.Context) (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Errorf("%d, %v", v, err)
	}
	if _, err := Within(context.Background(), Limits{}, func(context.Context) (int, error) { panic("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panic: %v", err)
	}
}

// The scan stops when its context ends.
func TestParseYAMLStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testLimits.ParseYAML(ctx, []byte(testbombs.KeysYAML(1000))); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// yamlSeeds are the bombs, for the fuzz targets.
func yamlSeeds() []string {
	return []string{
		testbombs.Policy(), testbombs.Process(), testbombs.Ladder("", 30, 2),
		testbombs.FlowYAML(5000), testbombs.BlockYAML(5000), testbombs.IndentYAML(200),
		testbombs.KeysYAML(6000), testbombs.PropertiesYAML(100), "a: " + testbombs.Scalar(1<<20),
		"a: &a [1, *a]\n", "a: &a\n  <<: *a\n", "*a\n", "&a &b x\n", "!t !t x\n",
		"[" + strings.Repeat("{a: ", 100) + "x" + strings.Repeat("}", 100) + "]\n",
	}
}

// Any input: ParseYAML returns within a bounded time and allocation, and
// what it accepts decodes within the caps.
func FuzzParseYAML(f *testing.F) {
	for _, s := range yamlSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// The scanner never makes more tokens than there are words and
		// indicators (countWords' bound).
		if w, _ := yamlWords(src, math.MaxInt); w <= DefaultMaxNodes {
			if n := len(lexer.Tokenize(string(src))); n > w {
				t.Fatalf("%d tokens from %d words and indicators: %q", n, w, src)
			}
		}
		var err error
		start := time.Now()
		alloc := testbombs.Allocated(func() {
			_, err = Within(context.Background(), testLimits, func(ctx context.Context) ([]any, error) {
				file, err := testLimits.ParseYAML(ctx, src)
				if err != nil {
					return nil, err
				}
				var docs []any
				for _, d := range file.Docs {
					var v any
					if err := yaml.NodeToValue(d.Body, &v); err != nil {
						return nil, err
					}
					docs = append(docs, v)
				}
				return docs, nil
			})
		})
		if took := time.Since(start); took > 20*time.Second {
			t.Fatalf("%d bytes took %s (%v)", len(src), took, err)
		}
		if alloc > 1<<30 {
			t.Fatalf("%d bytes allocated %d MB (%v)", len(src), alloc>>20, err)
		}
	})
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{testbombs.JSON(10_000), `{"a": "[[[["}`, "// [[[[\n[]", "/* [[ */ [", `"\"[[[`, testbombs.Scalar(1 << 20)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := testLimits.CheckJSON(data); err != nil {
			return
		}
		// What passes takes encoding/json no deeper than the cap, valid or
		// not (the depth it reached before its error).
		if d := jsonDepth(data); d > DefaultMaxDepth {
			t.Fatalf("passed at depth %d", d)
		}
	})
}

// jsonDepth is the deepest encoding/json's decoder goes in data.
func jsonDepth(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}
