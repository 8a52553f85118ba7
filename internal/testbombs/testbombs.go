// Package testbombs makes the nastiest files known for the router's
// parsers, for their tests and the seeds of their fuzz targets (issue 24):
// YAML alias ladders ("billion laughs"), deep nesting, mappings with many
// keys, huge scalars.
package testbombs

import (
	"fmt"
	"runtime"
	"strings"
)

// Ladder is a YAML alias ladder indented by indent: anchor l0 holds width
// strings, and each of the levels after it holds width aliases of the one
// before, so the last expands to width^(levels+1) strings. The lines are
// mapping entries l0: … lLEVELS: to place under a key.
func Ladder(indent string, levels, width int) string {
	var b strings.Builder
	b.WriteString(indent + "l0: &l0 [" + strings.TrimSuffix(strings.Repeat("lol,", width), ",") + "]\n")
	for i := 1; i <= levels; i++ {
		alias := fmt.Sprintf("*l%d,", i-1)
		fmt.Fprintf(&b, "%sl%d: &l%d [%s]\n", indent, i, i, strings.TrimSuffix(strings.Repeat(alias, width), ","))
	}
	return b.String()
}

// Policy is issue 24's policy.yaml: nine levels of nine (a list of nine
// strings, then eight levels of nine aliases of the level before) under
// abilities[0].input_schema.$defs of an otherwise valid ability: about
// 600 bytes that expand to 9^9 strings.
func Policy() string {
	return "abilities:\n" +
		"  - name: lol\n" +
		"    permission: read\n" +
		"    server: s\n" +
		"    tool: t\n" +
		"    input_schema:\n" +
		"      type: object\n" +
		"      $defs:\n" +
		Ladder("        ", 8, 9)
}

// Process is the same ladder in a process definition, under the
// payload_schema of its one event.
func Process() string {
	return "id: lol\n" +
		"version: 1.0.0\n" +
		"states:\n" +
		"  - {name: a, initial: true}\n" +
		"  - {name: b, final: true}\n" +
		"events:\n" +
		"  - name: go\n" +
		"    payload_schema:\n" +
		"      type: object\n" +
		"      $defs:\n" +
		Ladder("        ", 8, 9) +
		"transitions:\n" +
		"  - {from: a, event: go, to: b}\n"
}

// FlowYAML is n nested flow sequences: [[[…]]].
func FlowYAML(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// BlockYAML is n nested block sequences on one line: - - - … x.
func BlockYAML(n int) string { return strings.Repeat("- ", n) + "x\n" }

// IndentYAML is n nested block mappings, each key indented one more.
func IndentYAML(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// KeysYAML is one block mapping with n keys.
func KeysYAML(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d: x\n", i)
	}
	return b.String()
}

// PropertiesYAML is a node with n anchors in a row.
func PropertiesYAML(n int) string { return strings.Repeat("&a ", n) + "x\n" }

// JSON is n nested arrays: [[[…]]].
func JSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// Scalar is a YAML or JSON string of n bytes.
func Scalar(n int) string { return `"` + strings.Repeat("x", n) + `"` }

// Allocated runs fn and returns the bytes it allocated. TotalAlloc only
// grows, so it bounds the heap's peak growth during fn too; the tests of
// every loader hold a bomb to a bound with it.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
