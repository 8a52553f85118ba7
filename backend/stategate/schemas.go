package stategate

import "encoding/json"

// Input and output schemas of the tools. Each output schema admits the
// tool's answer and, for the tools other than emit_event (whose answer
// already has success and error), the refusal envelope
// {"success": false, "error": {...}}: clients validate structuredContent
// against the output schema even on an error result.

const errorSchema = `{
  "type": "object",
  "required": ["code", "message"],
  "properties": {
    "code": {"type": "string", "enum": ["REVISION_CONFLICT", "FORBIDDEN", "GUARD_FAILED", "INVALID_EVENT", "INVALID_PAYLOAD",
      "IDEMPOTENT_REPLAY", "RUN_NOT_FOUND", "PROCESS_NOT_FOUND", "IDEMPOTENCY_KEY_REUSED", "INVALID_REQUEST", "INTERNAL_ERROR"]},
    "message": {"type": "string"},
    "details": {
      "type": "object",
      "properties": {
        "current_revision": {"type": "integer"},
        "missing_guards": {"type": "array", "items": {"type": "string"}},
        "validation_errors": {"type": "array", "items": {"type": "object", "required": ["path", "message"],
          "properties": {"path": {"type": "string"}, "message": {"type": "string"}}}},
        "event_id": {"type": "string"}
      }
    }
  }
}`

const refusalSchema = `{"type": "object", "required": ["success", "error"],
  "properties": {"success": {"const": false}, "error": ` + errorSchema + `}}`

func orRefusal(schema string) json.RawMessage {
	return json.RawMessage(`{"type": "object", "anyOf": [` + schema + `, ` + refusalSchema + `]}`)
}

const runIDProp = `"run_id": {"type": "string", "description": "The run's id (run-…), from create_run or list_runs"}`

var (
	getStateInput = json.RawMessage(`{"type": "object", "properties": {` + runIDProp + `}, "required": ["run_id"]}`)

	listEventsInput = json.RawMessage(`{"type": "object", "properties": {` + runIDProp + `,
  "include_blocked": {"type": "boolean", "description": "Also list events that cannot be emitted now, with the reason"}},
  "required": ["run_id"]}`)

	emitEventInput = json.RawMessage(`{"type": "object", "properties": {` + runIDProp + `,
  "event_name": {"type": "string"},
  "payload": {"type": "object", "description": "The event's payload; it must match the event's payload_schema"},
  "expected_revision": {"type": "integer", "minimum": 0, "description": "The revision get_state gave: the event is refused with REVISION_CONFLICT if the run has moved on"},
  "idempotency_key": {"type": "string", "description": "A unique key for this event: sending it again returns the original result (IDEMPOTENT_REPLAY) instead of a second event"},
  "artifact_paths": {"type": "array", "items": {"type": "string"}, "description": "Files inside the run's workspace submitted with the event"}},
  "required": ["run_id", "event_name", "expected_revision", "idempotency_key"]}`)

	createRunInput = json.RawMessage(`{"type": "object", "properties": {
  "process_id": {"type": "string"},
  "context": {"type": "object", "description": "Facts about this run that guards may read (context.…)"},
  "workspace": {"type": "string", "description": "Directory of the run's files; it must lie inside one of the process's workspace_roots. Default: a new directory for the run"}},
  "required": ["process_id"]}`)

	listRunsInput = json.RawMessage(`{"type": "object", "properties": {
  "process_id": {"type": "string", "description": "Only runs of this process"},
  "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "At most this many runs, most recently updated first (default 100)"}}}`)
)

const stateSchema = `{
  "type": "object",
  "required": ["run_id", "process_id", "process_version", "current_state", "revision", "context", "missing_guards", "required_artifacts", "allowed_events", "updated_at"],
  "properties": {
    "run_id": {"type": "string"}, "process_id": {"type": "string"}, "process_version": {"type": "string"},
    "current_state": {"type": "string"}, "revision": {"type": "integer"}, "context": {"type": "object"},
    "missing_guards": {"type": "array", "items": {"type": "object", "required": ["guard_name", "description", "current_status"],
      "properties": {"guard_name": {"type": "string"}, "description": {"type": "string"}, "current_status": {"type": "string"}}}},
    "required_artifacts": {"type": "array", "items": {"type": "object", "required": ["type", "description", "status"],
      "properties": {"type": {"type": "string"}, "description": {"type": "string"}, "status": {"enum": ["missing", "present"]}}}},
    "allowed_events": {"type": "array", "items": {"type": "object", "required": ["event_name", "description"],
      "properties": {"event_name": {"type": "string"}, "description": {"type": "string"}, "payload_schema": {"type": ["object", "boolean"]}}}},
    "updated_at": {"type": "string"}
  }
}`

const eventsSchema = `{
  "type": "object",
  "required": ["run_id", "current_state", "events"],
  "properties": {
    "run_id": {"type": "string"}, "current_state": {"type": "string"},
    "events": {"type": "array", "items": {"type": "object", "required": ["event_name", "description", "transitions", "is_allowed", "blocked_reason"],
      "properties": {
        "event_name": {"type": "string"}, "description": {"type": "string"}, "payload_schema": {"type": ["object", "boolean"]},
        "transitions": {"type": "array", "items": {"type": "object", "required": ["to_state", "guard_status"],
          "properties": {"to_state": {"type": "string"}, "guard": {"type": "string"},
            "guard_status": {"enum": ["satisfied", "unsatisfied", "no_guard"]},
            "missing_requirements": {"type": "array", "items": {"type": "string"}}}}},
        "is_allowed": {"type": "boolean"}, "blocked_reason": {"type": ["string", "null"]}}}}
  }
}`

var emitEventOutput = json.RawMessage(`{
  "type": "object",
  "required": ["success"],
  "properties": {
    "success": {"type": "boolean"},
    "result": {"type": "object", "required": ["event_id", "accepted", "new_revision"],
      "properties": {"event_id": {"type": "string"}, "accepted": {"const": true},
        "transition": {"type": "object", "required": ["from_state", "to_state"],
          "properties": {"from_state": {"type": "string"}, "to_state": {"type": "string"}}},
        "new_revision": {"type": "integer"}}},
    "error": ` + errorSchema + `
  }
}`)

const runSchema = `{"type": "object", "required": ["run_id", "process_id", "process_version", "current_state", "revision", "context", "workspace", "summary_uri", "created_at", "updated_at"],
  "properties": {"run_id": {"type": "string"}, "process_id": {"type": "string"}, "process_version": {"type": "string"},
    "current_state": {"type": "string"}, "revision": {"type": "integer"}, "context": {"type": "object"},
    "workspace": {"type": "string"}, "summary_uri": {"type": "string"}, "created_by": {"type": "string"},
    "created_at": {"type": "string"}, "updated_at": {"type": "string"},
    "error": {"type": "string", "description": "Why the run is errored (its context cannot be read, or a guard was over its budget)"}}}`

var (
	getStateOutput   = orRefusal(stateSchema)
	listEventsOutput = orRefusal(eventsSchema)
	createRunOutput  = orRefusal(runSchema)
	listRunsOutput   = orRefusal(`{"type": "object", "required": ["runs"], "properties": {"runs": {"type": "array", "items": ` + runSchema + `}}}`)
)
