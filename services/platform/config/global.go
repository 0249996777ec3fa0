package config

import (
	"io"
	"log/slog"
	"path/filepath"
	"time"
)

// Global variables every agentk process reads.
const (
	EnvNATSURL   = "AGENTK_NATS_URL"
	EnvDataDir   = "AGENTK_DATA_DIR"
	EnvKeysDir   = "AGENTK_KEYS_DIR"
	EnvLogLevel  = "AGENTK_LOG_LEVEL"
	EnvLogFormat = "AGENTK_LOG_FORMAT"
	// EnvNATSPort is the embedded server's loopback client port.
	EnvNATSPort = "AGENTK_NATS_PORT"
	// EnvHealthAddr is where /<service>/healthz and /readyz are served.
	EnvHealthAddr = "AGENTK_HEALTH_ADDR"
	// DefaultHealthAddr is EnvHealthAddr's default.
	DefaultHealthAddr = "127.0.0.1:8090"
	// EnvBusAckWait and EnvBusMaxDeliver are platform/bus's, read there
	// through Declared.
	EnvBusAckWait    = "AGENTK_BUS_ACK_WAIT"
	EnvBusMaxDeliver = "AGENTK_BUS_MAX_DELIVER"
)

var (
	natsSchemes = []string{"nats", "tls", "ws", "wss"}
	logLevels   = []string{"debug", "info", "warn", "error"}
)

// Global is the configuration shared by every service.
type Global struct {
	// NATSURL is the external NATS server; empty means run an embedded one.
	NATSURL string
	// DataDir holds the embedded server's data and, by default, the keys.
	DataDir string
	// KeysDir holds the role seeds and keyring.json (default DataDir/keys).
	KeysDir   string
	LogLevel  slog.Level
	LogFormat string
}

// GlobalFromEnv reads the global variables into e; check e.Err() once the
// service's own variables are read too, so every problem is reported at once.
func GlobalFromEnv(e *Env) Global {
	g := Global{
		NATSURL:   e.URL(EnvNATSURL, "", natsSchemes, doc(EnvNATSURL)),
		DataDir:   e.String(EnvDataDir, def(EnvDataDir), doc(EnvDataDir)),
		LogFormat: e.OneOf(EnvLogFormat, def(EnvLogFormat), []string{"json", "text"}, doc(EnvLogFormat)),
	}
	g.KeysDir = e.String(EnvKeysDir, filepath.Join(g.DataDir, "keys"), doc(EnvKeysDir))
	switch e.OneOf(EnvLogLevel, def(EnvLogLevel), logLevels, doc(EnvLogLevel)) {
	case "debug":
		g.LogLevel = slog.LevelDebug
	case "warn":
		g.LogLevel = slog.LevelWarn
	case "error":
		g.LogLevel = slog.LevelError
	default:
		g.LogLevel = slog.LevelInfo
	}
	return g
}

// def and doc are a Platform variable's declared default and meaning.
func def(name string) string { d, _ := Platform.Lookup(name); return d.Default }
func doc(name string) string { d, _ := Platform.Lookup(name); return d.Doc }

// Logger returns the process's logger, writing to w in LogFormat at LogLevel.
func (g Global) Logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: g.LogLevel}
	if g.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// Platform declares what every agentk process reads (`agentk config`
// checks it as "platform"; docs/configuration.md lists it under "Every
// process"). GlobalFromEnv, platform/bus and platform/telemetry read these
// variables; the kinds and bounds here are theirs.
var Platform = Spec{Component: "platform", Vars: []Decl{
	{Name: EnvNATSURL, Kind: KindURL, Schemes: natsSchemes, DocDefault: "(empty: embedded server)", Doc: "external NATS server (`nats://`, `tls://`, `ws://`, `wss://`)"},
	{Name: EnvNATSPort, Kind: KindInt, Default: "4222", Max: 65535, Doc: "the embedded server's loopback client port (`agentk up`), so operator commands can reach it; `0` picks a free one"},
	{Name: EnvDataDir, Default: ".data", Doc: "embedded server data and keys"},
	{Name: EnvKeysDir, DocDefault: "`$AGENTK_DATA_DIR/keys`", Doc: "role seeds (`<role>.nk`, 0600) and `keyring.json`"},
	{Name: EnvLogLevel, Kind: KindEnum, Default: "info", Allowed: logLevels, Doc: "`debug`, `info`, `warn`, `error`"},
	{Name: "AGENTK_CRASHPOINT", Doc: "only in a binary built with `-tags agentk_crashpoints` (the crash suite's own, never a production build): the `platform/crashpoint` point to stop at, e.g. `deployer.handled`"},
	{Name: "AGENTK_CRASHPOINT_MARKER", Doc: "same build only: the file written right before the process blocks at that point"},
	{Name: "AGENTK_MUTANT", Doc: "only in a binary built with `-tags agentk_mutants` (`make mutants`, never a production build): the one `platform/mutant` safety check to switch off"},
	{Name: EnvLogFormat, Kind: KindEnum, Default: "json", Allowed: []string{"json", "text"}, Doc: "`json` or `text`"},
	{Name: EnvBusAckWait, Kind: KindDuration, Default: "30s", MinDur: time.Second, Doc: "how long JetStream waits for a handler's ack before redelivering (at least `1s`); a slow handler sends in-progress heartbeats every third of it, so it bounds how late a crashed handler's message is redelivered"},
	{Name: EnvBusMaxDeliver, Kind: KindInt, Default: "5", Min: 1, Max: 100, Doc: "deliveries of a failing message before it is dead-lettered to `agentk.dlq.<subject>` (1–100)"},
	{Name: EnvHealthAddr, Default: DefaultHealthAddr, Doc: "`agentk up` / `agentk <service>`: serves `/<service>/healthz` and `/<service>/readyz`"},
	{Name: "AGENTK_STREAM_REPLICAS", DocDefault: "`1`", Doc: "`agentk provision`: stream and bucket replicas (1, 3 or 5)"},
	{Name: "AGENTK_STREAM_MAX_AGE", DocDefault: "`720h`", Doc: "`agentk provision`: how long every message is kept (the audit trail; at least 1h)"},
	{Name: "AGENTK_OTEL_DISABLED", DocDefault: "unset", Doc: "`1`: build telemetry providers, export nothing (tests always set it)"},
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", External: true, DocDefault: "unset: nothing exported, nothing logged about it", Doc: "OTLP collector, e.g. SigNoz's `http://signoz-otel-collector:4318`; a signal is exported only when its endpoint (or the base one) is set"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", External: true, DocDefault: "`OTEL_EXPORTER_OTLP_ENDPOINT`", Doc: "the traces' own endpoint"},
	{Name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", External: true, DocDefault: "`OTEL_EXPORTER_OTLP_ENDPOINT`", Doc: "the metrics' own endpoint"},
	{Name: "OTEL_EXPORTER_OTLP_PROTOCOL", External: true, DocDefault: "`http/protobuf`", Doc: "or `grpc`"},
	{Name: "OTEL_EXPORTER_OTLP_HEADERS", External: true, Secret: true, Doc: "`k=v,k2=v2` (URL-encoded values), e.g. `signoz-ingestion-key=…`"},
	{Name: "OTEL_SERVICE_NAME", External: true, DocDefault: "`agentk-<service>`", Doc: "resource: the service name"},
	{Name: "OTEL_RESOURCE_ATTRIBUTES", External: true, Doc: "resource: further attributes"},
}}
