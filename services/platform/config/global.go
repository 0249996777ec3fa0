package config

import (
	"io"
	"log/slog"
	"path/filepath"
)

// Global variables every agentk process reads.
const (
	EnvNATSURL   = "AGENTK_NATS_URL"
	EnvDataDir   = "AGENTK_DATA_DIR"
	EnvKeysDir   = "AGENTK_KEYS_DIR"
	EnvLogLevel  = "AGENTK_LOG_LEVEL"
	EnvLogFormat = "AGENTK_LOG_FORMAT"
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
		NATSURL:   e.URL(EnvNATSURL, "", []string{"nats", "tls", "ws", "wss"}, "the NATS server; empty runs an embedded one"),
		DataDir:   e.String(EnvDataDir, ".data", "directory for the embedded server's data and keys"),
		LogFormat: e.OneOf(EnvLogFormat, "json", []string{"json", "text"}, "log format"),
	}
	g.KeysDir = e.String(EnvKeysDir, filepath.Join(g.DataDir, "keys"), "directory of the role seeds and keyring.json")
	switch e.OneOf(EnvLogLevel, "info", []string{"debug", "info", "warn", "error"}, "log level") {
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

// Logger returns the process's logger, writing to w in LogFormat at LogLevel.
func (g Global) Logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: g.LogLevel}
	if g.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
