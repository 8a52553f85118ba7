package shellenv

import (
	"errors"
	"reflect"
	"testing"
)

// On Windows the registry gives PATH (system's, then user's) and the model
// vendors' variables (user's over system's), so a key set with setx after
// login reaches the chat of an app started from Explorer.
func TestFromRegistry(t *testing.T) {
	values := map[bool]map[string]string{
		true:  {"Path": `C:\Windows`, "OPENAI_API_KEY": "sk-machine", "ANTHROPIC_BASE_URL": "https://gw.example/anthropic", "OTHER": "x"},
		false: {"Path": `C:\Users\me\bin`, "OPENAI_API_KEY": "sk-user", "OPENAI_BASE_URL": ""},
	}
	read := func(machine bool, name string) (string, error) { return values[machine][name], nil }
	env, err := fromRegistry(read)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Path": `C:\Windows;C:\Users\me\bin`, "OPENAI_API_KEY": "sk-user", "ANTHROPIC_BASE_URL": "https://gw.example/anthropic"}
	if !reflect.DeepEqual(env, want) {
		t.Fatalf("env %q, want %q", env, want)
	}
	boom := errors.New("access denied")
	if _, err := fromRegistry(func(machine bool, name string) (string, error) {
		if name == "ANTHROPIC_API_KEY" {
			return "", boom
		}
		return read(machine, name)
	}); !errors.Is(err, boom) {
		t.Fatalf("a failed read: %v", err)
	}
	if _, err := fromRegistry(func(bool, string) (string, error) { return "", nil }); err == nil {
		t.Fatal("no PATH at all was accepted")
	}
}
