// Package commandtest hands a command package's tests an environment with
// captured output.
package commandtest

import (
	"bytes"
	"strings"

	"agentk/cmd/agentk/internal/command"
)

// New returns an Env that reads env for its variables, no stdin, and writes
// to the two buffers returned (stdout, stderr).
func New(env map[string]string) (*command.Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &command.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string { return env[k] }}, &out, &errb
}
