package stategate

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// words are the engine's own sentences in a process's language (its
// `language:`; the seed's examples are Japanese). Error messages of
// emit_event stay in English, as the seed writes them.
type words struct{ ja bool }

func (p *Process) words() words { return words{ja: p.Language == "ja"} }

func (w words) onlyIn(states []string) string {
	if w.ja {
		return fmt.Sprintf("現在の状態では発行できません（%s 状態でのみ発行可能）", strings.Join(states, "、"))
	}
	return fmt.Sprintf("not available in the current state (only in %s)", strings.Join(states, ", "))
}

func (w words) finished(state string) string {
	if w.ja {
		return fmt.Sprintf("実行は終了しています（%s は終了状態）", state)
	}
	return fmt.Sprintf("the run has finished (%s is a final state)", state)
}

func (w words) forbidden(who string, roles []string) string {
	if w.ja {
		return fmt.Sprintf("現在のロールでは発行できません（%s; 許可: %s）", who, strings.Join(roles, "、"))
	}
	return fmt.Sprintf("%s may not emit it (allowed: %s)", who, strings.Join(roles, ", "))
}

// validatePayload checks a payload against an event's schema; each failure
// is one {path, message}, path a JSON pointer from the arguments' root.
func validatePayload(sch *jsonschema.Schema, payload []byte) []ValidationError {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return []ValidationError{{Path: "/payload", Message: "not valid JSON: " + err.Error()}}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []ValidationError{{Path: "/payload", Message: err.Error()}}
	}
	out := []ValidationError{}
	for _, l := range leaves(ve) {
		if l.Path == "/" {
			l.Path = ""
		}
		out = append(out, ValidationError{Path: "/payload" + l.Path, Message: l.Message})
	}
	if len(out) == 0 {
		out = append(out, ValidationError{Path: "/payload", Message: oneLine(err)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
