package tools

import "github.com/santhosh-tekuri/jsonschema/v6"

// Schema returns the compiled JSON Schema of tool's arguments, from
// contracts.ToolSpecs (nil for a tool it does not list): the one compilation
// every tool's validation uses, list_fields' (fieldtool) included.
func Schema(tool string) *jsonschema.Schema { return schemas()[tool] }
