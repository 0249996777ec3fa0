package config_test

import (
	"errors"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"time"

	"agentk/platform/config"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEveryProblemIsReportedAtOnce(t *testing.T) {
	t.Parallel()
	e := config.New(env(map[string]string{
		"A_INT": "x", "A_DUR": "5", "A_BOOL": "maybe", "A_URL": "localhost:8080",
		"A_FLOAT": "2", "A_ONE": "purple", "A_SECRET": "s", "A_SECRET_FILE": "/x",
	}))
	e.Int("A_INT", 1, 0, 10, "")
	e.Duration("A_DUR", time.Second, 0, "")
	e.Bool("A_BOOL", false, "")
	e.URL("A_URL", "", []string{"http", "https"}, "")
	e.Float("A_FLOAT", 0.7, 0, 1, "")
	e.OneOf("A_ONE", "red", []string{"red", "blue"}, "")
	e.Secret("A_SECRET", true, "")
	e.Required("A_REQ", "the thing")
	err := e.Err()
	require.ErrorIs(t, err, config.ErrInvalid)
	for _, name := range []string{"A_INT", "A_DUR", "A_BOOL", "A_URL", "A_FLOAT", "A_ONE", "A_SECRET", "A_REQ"} {
		require.Contains(t, err.Error(), name+":")
	}
	require.Len(t, strings.Split(err.Error(), "\n"), 8)
}

func TestGetters(t *testing.T) {
	t.Parallel()
	e := config.New(env(map[string]string{
		"N": " 7 ", "D": "90s", "B": "yes", "L": "a, b,,c", "U": "https://signoz:8080", "F": "0.5", "O": "BLUE",
	}))
	require.Equal(t, 7, e.Int("N", 1, 0, 10, ""))
	require.Equal(t, 3, e.Int("N_DEFAULT", 3, 0, 10, ""))
	require.Equal(t, 90*time.Second, e.Duration("D", time.Second, time.Second, ""))
	require.True(t, e.Bool("B", false, ""))
	require.Equal(t, []string{"a", "b", "c"}, e.List("L", nil, ""))
	require.Equal(t, "https://signoz:8080", e.URL("U", "", []string{"http", "https"}, ""))
	require.Equal(t, 0.5, e.Float("F", 0.7, 0, 1, ""))
	require.Equal(t, "blue", e.OneOf("O", "red", []string{"red", "blue"}, ""))
	require.NoError(t, e.Err())
}

func TestSecretsFromEnvOrFileAndRedacted(t *testing.T) {
	t.Parallel()
	files := map[string]string{"/run/secrets/key": "s3cr3t-from-file\n", "/empty": "\n"}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	cases := []struct {
		name    string
		vars    map[string]string
		want    string
		wantErr bool
		source  config.Source
	}{
		{name: "from env", vars: map[string]string{"K": "s3cr3t"}, want: "s3cr3t", source: config.FromEnv},
		{name: "from file", vars: map[string]string{"K_FILE": "/run/secrets/key"}, want: "s3cr3t-from-file", source: config.FromFile},
		{name: "both set", vars: map[string]string{"K": "a", "K_FILE": "/run/secrets/key"}, wantErr: true},
		{name: "missing file", vars: map[string]string{"K_FILE": "/nope"}, wantErr: true},
		{name: "empty file", vars: map[string]string{"K_FILE": "/empty"}, wantErr: true},
		{name: "required and unset", vars: map[string]string{}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := config.New(env(tc.vars)).WithReadFile(read)
			got := e.Secret("K", true, "an API key")
			if tc.wantErr {
				require.ErrorIs(t, e.Err(), config.ErrInvalid)
				return
			}
			require.NoError(t, e.Err())
			require.Equal(t, tc.want, got)
			d := e.Describe()
			require.Len(t, d, 1)
			require.Equal(t, tc.source, d[0].Source)
			require.True(t, d[0].Secret)
			out := config.Render(d)
			require.NotContains(t, out, "s3cr3t")
			require.Contains(t, out, config.Redacted)
		})
	}
}

func TestURLCredentialsAreRedacted(t *testing.T) {
	t.Parallel()
	e := config.New(env(map[string]string{"AGENTK_NATS_URL": "nats://user:hunter2@nats:4222"}))
	g := config.GlobalFromEnv(e)
	require.NoError(t, e.Err())
	require.Equal(t, "nats://user:hunter2@nats:4222", g.NATSURL)
	require.NotContains(t, config.Render(e.Describe()), "hunter2")
}

func TestGlobal(t *testing.T) {
	t.Parallel()
	e := config.New(env(map[string]string{"AGENTK_DATA_DIR": "/var/lib/agentk", "AGENTK_LOG_LEVEL": "debug", "AGENTK_LOG_FORMAT": "text"}))
	g := config.GlobalFromEnv(e)
	require.NoError(t, e.Err())
	require.Equal(t, "/var/lib/agentk/keys", g.KeysDir)
	require.Equal(t, slog.LevelDebug, g.LogLevel)
	require.Empty(t, g.NATSURL)

	bad := config.New(env(map[string]string{"AGENTK_LOG_LEVEL": "loud", "AGENTK_NATS_URL": "http://x"}))
	config.GlobalFromEnv(bad)
	err := bad.Err()
	require.True(t, errors.Is(err, config.ErrInvalid))
	require.Contains(t, err.Error(), "AGENTK_LOG_LEVEL")
	require.Contains(t, err.Error(), "AGENTK_NATS_URL")
}

// TestDeclaredReadsTheDeclaration: a reader outside the package (platform/bus)
// takes its bounds and default from the Spec, so changing the declaration
// changes what it accepts.
func TestDeclaredReadsTheDeclaration(t *testing.T) {
	t.Parallel()
	spec := config.Spec{Component: "t", Vars: []config.Decl{
		{Name: "D", Kind: config.KindDuration, Default: "30s", MinDur: time.Second},
		{Name: "N", Kind: config.KindInt, Default: "5", Min: 1, Max: 100},
	}}
	for _, tc := range []struct {
		name    string
		vars    map[string]string
		wantD   time.Duration
		wantN   int
		problem []string
	}{
		{name: "defaults", wantD: 30 * time.Second, wantN: 5},
		{name: "set", vars: map[string]string{"D": "3s", "N": "7"}, wantD: 3 * time.Second, wantN: 7},
		{name: "out of the declared bounds", vars: map[string]string{"D": "10ms", "N": "101"},
			wantD: 30 * time.Second, wantN: 5, problem: []string{"D:", "N:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := config.New(env(tc.vars))
			require.Equal(t, tc.wantD, config.Declared[time.Duration](e, spec, "D"))
			require.Equal(t, tc.wantN, config.Declared[int](e, spec, "N"))
			if tc.problem == nil {
				require.NoError(t, e.Err())
				return
			}
			require.ErrorIs(t, e.Err(), config.ErrInvalid)
			for _, p := range tc.problem {
				require.Contains(t, e.Err().Error(), p)
			}
		})
	}
	e := config.New(env(nil))
	require.Zero(t, config.Declared[int](e, spec, "UNDECLARED"))
	require.Zero(t, config.Declared[int](e, spec, "D"), "a Duration read as an int")
	require.ErrorContains(t, e.Err(), "UNDECLARED: not declared in t")
	require.ErrorContains(t, e.Err(), "D: declared default")
}
