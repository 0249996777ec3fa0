// Package natsembed runs nats-server in-process for the combined agentk binary
// and for tests: JetStream on a file store under a data directory, listening on
// loopback only, with one nkey user per role whose permissions come from
// platform/topology. The configuration is rendered by Render, the same function
// that writes the compose stack's nats.conf, and loaded through nats-server's
// own config parser, so the embedded and the production server enforce the
// same table.
package natsembed

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

var (
	// ErrStart is returned when the server cannot be configured or started.
	ErrStart = errors.New("natsembed: start")
)

// Options configure an embedded server.
type Options struct {
	// DataDir holds nats.conf and the JetStream store (DataDir/jetstream).
	DataDir string
	// Host defaults to 127.0.0.1. Anything but a loopback address is refused
	// unless AllowNonLoopback is set.
	Host             string
	AllowNonLoopback bool
	// Port 0 or -1 picks a random free port.
	Port int
	// Users maps each role and topology.RoleAdmin to its nkey public key.
	Users map[string]string
	// ServerName defaults to "agentk-embedded".
	ServerName string
	// Cluster, when set, makes the server a node of a JetStream cluster
	// (its ServerName must then differ from its peers').
	Cluster *Cluster
	// ReadyTimeout bounds start-up; default 10 s.
	ReadyTimeout time.Duration
	Logger       *slog.Logger
}

// Server is a running embedded nats-server.
type Server struct {
	ns  *server.Server
	cfg string
}

// Start writes DataDir/nats.conf, loads it and starts the server. It returns
// once the server accepts connections, or ErrStart.
func Start(o Options) (*Server, error) {
	if o.DataDir == "" {
		return nil, fmt.Errorf("%w: data dir is empty", ErrStart)
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if !o.AllowNonLoopback && o.Host != "127.0.0.1" && o.Host != "::1" && o.Host != "localhost" {
		return nil, fmt.Errorf("%w: host %s is not loopback", ErrStart, o.Host)
	}
	if o.Port == 0 {
		o.Port = -1
	}
	if o.ServerName == "" {
		o.ServerName = "agentk-embedded"
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	text, err := Render(ServerConfig{
		ServerName: o.ServerName, Host: o.Host, Port: o.Port,
		StoreDir: filepath.Join(dir, "jetstream"), Users: o.Users, Cluster: o.Cluster,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	path := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	opts, err := processConfig(text, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrStart, path, err)
	}
	opts.NoSigs = true
	opts.JetStream = true
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	ns.SetLoggerV2(&logAdapter{log: o.Logger.With("component", "nats-server")}, false, false, false)
	ns.Start()
	if !ns.ReadyForConnections(o.ReadyTimeout) {
		ns.Shutdown()
		return nil, fmt.Errorf("%w: not ready within %s", ErrStart, o.ReadyTimeout)
	}
	if !ns.JetStreamEnabled() {
		ns.Shutdown()
		return nil, fmt.Errorf("%w: JetStream is not enabled", ErrStart)
	}
	return &Server{ns: ns, cfg: path}, nil
}

// processConfig loads the configuration text written to path through
// nats-server's parser in its pedantic mode, as server.ProcessConfigFile
// does, without the digest of the parsed tree ProcessConfigFile also takes
// (JSON of every token, hashed: a fifth of a replay's server start, for a
// value only the monitoring endpoint shows). Warnings alone are no error,
// as there.
func processConfig(text, path string) (*server.Options, error) {
	opts := &server.Options{}
	if err := opts.ProcessConfigString(text); err != nil {
		var onlyWarnings interface{ Errors() []error }
		if !errors.As(err, &onlyWarnings) || len(onlyWarnings.Errors()) > 0 {
			return nil, err
		}
	}
	opts.ConfigFile = path
	return opts, nil
}

// ClientURL returns the nats:// URL clients connect to.
func (s *Server) ClientURL() string { return s.ns.ClientURL() }

// ConfigPath returns the path of the rendered nats.conf.
func (s *Server) ConfigPath() string { return s.cfg }

// Shutdown stops the server and waits until it has stopped. JetStream data is
// flushed to the store so a server started on the same data dir keeps it.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// NATS returns the underlying server, for tests and diagnostics.
func (s *Server) NATS() *server.Server { return s.ns }

// logAdapter sends nats-server's log lines to slog.
type logAdapter struct{ log *slog.Logger }

func (l *logAdapter) Noticef(f string, v ...any) { l.log.Info(fmt.Sprintf(f, v...)) }
func (l *logAdapter) Warnf(f string, v ...any)   { l.log.Warn(fmt.Sprintf(f, v...)) }
func (l *logAdapter) Fatalf(f string, v ...any)  { l.log.Error(fmt.Sprintf(f, v...), "fatal", true) }
func (l *logAdapter) Errorf(f string, v ...any)  { l.log.Error(fmt.Sprintf(f, v...)) }
func (l *logAdapter) Debugf(f string, v ...any)  { l.log.Debug(fmt.Sprintf(f, v...)) }
func (l *logAdapter) Tracef(f string, v ...any)  {}
