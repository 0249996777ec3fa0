package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/replay"
	"agentk/contracts"
	"agentk/contracts/envelope"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

// tamper changes one byte of the payload of the first message on subject
// and keeps its signature: what an attacker with write access to the store
// could do.
func tamper(t *testing.T, msgs []chain.Msg, subject string) []chain.Msg {
	t.Helper()
	out := append([]chain.Msg(nil), msgs...)
	for i, m := range out {
		if m.Subject != subject {
			continue
		}
		e, err := envelope.Parse(m.Data)
		require.NoError(t, err)
		p := bytes.Clone(e.Payload)
		j := bytes.LastIndexByte(p, '}')
		e.Payload = append(p[:j:j], []byte(`,"x":1}`)...)
		out[i].Data = e.Marshal()
		return out
	}
	t.Fatalf("no %s to tamper with", subject)
	return nil
}

func TestAuditOfAReplayedIncident(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := replay.Run(ctx, filepath.Join(repoRoot, "e2e", "incidents", "retry-storm-01"), replay.Options{DataDir: dir})
	require.NoError(t, err)
	require.Equal(t, "dry_run", res.Action)
	c := &command.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
		if k == "AGENTK_DATA_DIR" {
			return dir
		}
		return ""
	}}
	kr, msgs, done, err := readStreams(ctx, c)
	require.NoError(t, err)
	done() // the messages are copies; the CLI below opens the data dir itself
	incident := ""
	for _, m := range msgs {
		if m.Subject == contracts.SubjectAlert {
			var a contracts.AlertV1
			e, _ := envelope.Parse(m.Data)
			require.NoError(t, json.Unmarshal(e.Payload, &a))
			incident = a.IncidentID
		}
	}
	require.NotEmpty(t, incident)

	clean := chain.Audit(kr, incident, msgs)
	require.True(t, clean.OK, "%+v", clean.Links)
	var names []string
	for _, l := range clean.Links {
		names = append(names, l.Link)
	}
	for _, want := range []string{"alert", "evidence", "review", "decision", "approval", "action"} {
		require.Contains(t, names, want)
	}

	cases := []struct {
		name    string
		subject string
		broken  string
	}{
		{name: "tampered evidence record", subject: contracts.SubjectEvidence, broken: "evidence"},
		{name: "tampered decision", subject: contracts.SubjectDecision, broken: "decision"},
		{name: "tampered approval", subject: contracts.SubjectApproval, broken: "approval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := chain.Audit(kr, incident, tamper(t, msgs, tc.subject))
			require.False(t, rep.OK)
			var first *chain.Link
			for i := range rep.Links {
				if !rep.Links[i].OK {
					first = &rep.Links[i]
					break
				}
			}
			require.NotNil(t, first)
			require.Equal(t, tc.broken, first.Link, "the first broken link is the tampered one: %s", first.Problem)
			require.Contains(t, first.Problem, "signature")
		})
	}
	t.Run("approval signed by the investigator's key is named so", func(t *testing.T) {
		inv := newSigner(t)
		kr2, err := envelope.NewKeyring(append(kr.Entries(), envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator})...)
		require.NoError(t, err)
		forged := append([]chain.Msg(nil), msgs...)
		for i, m := range forged {
			if m.Subject != contracts.SubjectApproval {
				continue
			}
			e, err := envelope.Parse(m.Data)
			require.NoError(t, err)
			re, err := inv.Seal(contracts.SubjectApproval, e.Payload, e.Issued(), 0)
			require.NoError(t, err)
			forged[i].Data = re.Marshal()
		}
		rep := chain.Audit(kr2, incident, forged)
		require.False(t, rep.OK)
		var l *chain.Link
		for i := range rep.Links {
			if rep.Links[i].Link == "approval" {
				l = &rep.Links[i]
			}
		}
		require.NotNil(t, l)
		require.False(t, l.OK)
		require.Contains(t, l.Who, "signed by investigator key "+chain.Short(inv.KeyID()))
		require.NotContains(t, l.Who, "signed by bridge")
		for _, c := range clean.Links {
			if c.Link == "approval" {
				require.Contains(t, c.Who, "(signed by bridge)", "the genuine approval names the bridge")
			}
		}
	})
	t.Run("missing decision", func(t *testing.T) {
		var kept []chain.Msg
		for _, m := range msgs {
			if m.Subject != contracts.SubjectDecision {
				kept = append(kept, m)
			}
		}
		rep := chain.Audit(kr, incident, kept)
		require.False(t, rep.OK)
		var broken []string
		for _, l := range rep.Links {
			if !l.OK {
				broken = append(broken, l.Link)
			}
		}
		require.Equal(t, []string{"decision", "approval", "action"}, broken)
	})
	t.Run("exit status", func(t *testing.T) {
		out := &bytes.Buffer{}
		c.Stdout = out
		require.Equal(t, 0, command.Run(ctx, c, []string{"audit", incident}))
		require.Contains(t, out.String(), "chain verified")
		out.Reset()
		require.Equal(t, 1, command.Run(ctx, c, []string{"audit", "inc-that-never-was"}))
		require.Contains(t, c.Stderr.(*bytes.Buffer).String(), "no such incident inc-that-never-was")
		require.NotContains(t, out.String(), "CHAIN BROKEN")
	})
}

func newSigner(t *testing.T) *envelope.Signer {
	t.Helper()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(t, err)
	return s
}
