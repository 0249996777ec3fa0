// Package contracts holds every message that crosses the agentk bus: one Go type
// per subject and version. Types are additive within a version: a field may be
// added (optional, omitempty), never removed, renamed or retyped. A breaking change
// is a new version (agentk.x.v2) that runs beside the old one.
//
// Every message travels inside an envelope.Envelope signed by its one producer;
// the payload is the JSON encoding of one of these types.
package contracts
