package config_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"agentk/platform/config"

	"github.com/stretchr/testify/require"
)

var errMine = errors.New("svc: invalid configuration")

var testSpec = config.Spec{Component: "svc", Err: errMine, Vars: []config.Decl{
	{Name: "S", Default: "dflt", Doc: "a string"},
	{Name: "N", Kind: config.KindInt, Default: "3", Min: 1, Max: 10},
	{Name: "F", Kind: config.KindFloat, Default: "0.7", Min: 0.5, Max: 1},
	{Name: "D", Kind: config.KindDuration, Default: "1m", MinDur: time.Minute, MaxDur: time.Hour, Seconds: true},
	{Name: "B", Kind: config.KindBool, Default: "false"},
	{Name: "L", Kind: config.KindList, Default: "a,b"},
	{Name: "U", Kind: config.KindURL},
	{Name: "E", Kind: config.KindEnum, Default: "red", Allowed: []string{"red", "blue"}},
	{Name: "K", Secret: true},
	{Name: "R", Required: true},
}}

func TestSpecReadsEveryKind(t *testing.T) {
	t.Parallel()
	files := func(p string) ([]byte, error) {
		if p == "/run/k" {
			return []byte("s3cr3t\n"), nil
		}
		return nil, fs.ErrNotExist
	}
	cases := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, v *config.Values)
	}{
		{name: "defaults", env: map[string]string{"R": "x"}, check: func(t *testing.T, v *config.Values) {
			require.Equal(t, "dflt", v.String("S"))
			require.Equal(t, 3, v.Int("N"))
			require.Equal(t, 0.7, v.Float("F"))
			require.Equal(t, time.Minute, v.Duration("D"))
			require.False(t, v.Bool("B"))
			require.Equal(t, []string{"a", "b"}, v.List("L"))
			require.Equal(t, "red", v.String("E"))
			require.Empty(t, v.String("K"))
			require.False(t, v.IsSet("S"))
		}},
		{name: "set", env: map[string]string{"R": "x", "S": " s ", "N": "10", "F": "1", "D": "90", "B": "yes", "L": "c, c,,d", "U": "https://h:1/p", "E": "BLUE", "K_FILE": "/run/k"},
			check: func(t *testing.T, v *config.Values) {
				require.Equal(t, "s", v.String("S"))
				require.Equal(t, 10, v.Int("N"))
				require.Equal(t, 1.0, v.Float("F"))
				require.Equal(t, 90*time.Second, v.Duration("D"), "a bare number is seconds when declared so")
				require.True(t, v.Bool("B"))
				require.Equal(t, []string{"c", "d"}, v.List("L"))
				require.Equal(t, "https://h:1/p", v.String("U"))
				require.Equal(t, "blue", v.String("E"))
				require.Equal(t, "s3cr3t", v.String("K"))
				require.True(t, v.IsSet("K"))
				out := config.Render(v.Describe())
				require.NotContains(t, out, "s3cr3t")
				require.Contains(t, out, config.Redacted+" (from /run/k)")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := testSpec.ReadWith(env(tc.env), files)
			require.NoError(t, v.Err())
			tc.check(t, v)
		})
	}
}

func TestSpecReportsEveryProblemByName(t *testing.T) {
	t.Parallel()
	v := testSpec.ReadWith(env(map[string]string{
		"N": "11", "F": "NaN", "D": "2h", "B": "maybe", "U": "localhost:8080", "E": "green", "K": "hunter2", "K_FILE": "/run/k",
	}), func(string) ([]byte, error) { return nil, fs.ErrNotExist })
	v.Failf("S", "a cross-field check")
	err := v.Err()
	require.ErrorIs(t, err, config.ErrInvalid)
	require.ErrorIs(t, err, errMine)
	require.True(t, strings.HasPrefix(err.Error(), errMine.Error()+":\n"))
	for _, name := range []string{"N:", "F:", "D:", "B:", "U:", "E:", "R: required", "K and K_FILE are both set", "S: a cross-field check"} {
		require.Contains(t, err.Error(), name)
	}
	require.NotContains(t, err.Error(), "hunter2")
	require.Len(t, strings.Split(err.Error(), "\n"), 10)
	require.Equal(t, 3, v.Int("N"), "a bad value reads as its default")
}

func TestSpecSecretGotIsRedacted(t *testing.T) {
	t.Parallel()
	spec := config.Spec{Component: "svc", Vars: []config.Decl{{Name: "K", Kind: config.KindInt, Secret: true, Min: 1, Max: 2}}}
	err := spec.Read(env(map[string]string{"K": "hunter2"})).Err()
	require.ErrorIs(t, err, config.ErrInvalid)
	require.NotContains(t, err.Error(), "hunter2")
	require.Contains(t, err.Error(), "svc: invalid configuration")
}

func TestSpecNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"S", "N", "F", "D", "B", "L", "U", "E", "K", "K_FILE", "R"}, testSpec.Names())
	d, ok := testSpec.Lookup("K")
	require.True(t, ok)
	require.True(t, d.Secret)
}

func TestAllOrList(t *testing.T) {
	t.Parallel()
	spec := config.Spec{Component: "svc", Vars: []config.Decl{{Name: "SHADOW", Kind: config.KindList}}}
	valid := func(s string) bool { return !strings.Contains(s, " ") && s != "" }
	cases := []struct {
		name    string
		value   string
		all     bool
		items   []string
		wantErr bool
	}{
		{name: "unset"},
		{name: "all", value: "all", all: true},
		{name: "names", value: "a, b", items: []string{"a", "b"}},
		{name: "a bad name", value: "a,b c", items: []string{"a"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := spec.Read(env(map[string]string{"SHADOW": tc.value}))
			all, items := v.AllOrList("SHADOW", valid)
			require.Equal(t, tc.all, all)
			require.Equal(t, tc.items, items)
			if tc.wantErr {
				require.ErrorContains(t, v.Err(), `SHADOW: "b c" is neither all nor a service name`)
				return
			}
			require.NoError(t, v.Err())
		})
	}
}

// The platform's declarations parse their own defaults.
func TestPlatformDefaultsParse(t *testing.T) {
	t.Parallel()
	require.NoError(t, config.Platform.Read(env(nil)).Err())
	e := config.New(env(nil))
	g := config.GlobalFromEnv(e)
	require.NoError(t, e.Err())
	require.Equal(t, ".data", g.DataDir)
	require.Equal(t, "json", g.LogFormat)
}

// An empty secret file (Compose mounts every declared secret, an optional
// one as an empty file) reads as unset: no problem when the variable is
// optional, "required" when it is not.
func TestSpecEmptySecretFileIsUnset(t *testing.T) {
	t.Parallel()
	read := func(string) ([]byte, error) { return []byte("\n"), nil }
	vars := map[string]string{"TOKEN_FILE": "/run/secrets/token"}
	optional := config.Spec{Component: "svc", Vars: []config.Decl{{Name: "TOKEN", Kind: config.KindString, Secret: true}}}
	require.NoError(t, optional.ReadWith(env(vars), read).Err())
	required := config.Spec{Component: "svc", Vars: []config.Decl{{Name: "TOKEN", Kind: config.KindString, Secret: true, Required: true}}}
	err := required.ReadWith(env(vars), read).Err()
	require.ErrorIs(t, err, config.ErrInvalid)
	require.Contains(t, err.Error(), "TOKEN")
}
