package policy

import "encoding/json"

// jsonUnmarshalQuiet decodes what it can of an untrusted payload, for ids in a
// refusal only.
func jsonUnmarshalQuiet(b []byte, v any) error { return json.Unmarshal(b, v) }
