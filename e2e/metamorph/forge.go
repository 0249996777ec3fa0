package metamorph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// ForgedMarker appends one deployment.marker span of service naming version
// at at: the claim of a test suite, a restart or an attacker that the
// release ledger (releases.yaml, left alone) contradicts. Issue 31's
// "forged-marker corpus" is every deny incident with one (ForgeDenies).
func ForgedMarker(service, version string, at time.Time) Transform {
	return Transform{Name: "forged-marker", Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		l := Line{}
		id := remapID("0123456789abcdef0123456789abcdef", f.ID+"/forged")
		l.set("trace_id", id)
		l.set("span_id", id[:16])
		l.set("parent_span_id", "")
		l.set("name", "deployment.marker")
		l.set("kind", 1)
		l.setTime(at)
		l.set("duration_nano", 0)
		l.set("has_error", false)
		l.set("status_code", 0)
		l.set("status_message", "")
		l.set("resource", map[string]string{"service.name": service})
		l.set("attributes", map[string]string{"deployment.version": version})
		c.Spans = append(c.Spans, l)
		sortByTime(c.Spans)
		return c, nil
	}}
}

// Forged is one incident of the forged-marker corpus.
type Forged struct {
	// Dir is the transformed folder, Source the incident it came from.
	Dir, Source string
	// Version is the marker's version (the running one) and At its time.
	Version string
	At      time.Time
	// Started is when the ledger says Version started.
	Started time.Time
}

// ForgeDenies writes, for every incident of corpus whose right answer is
// deny and whose alerted service has a release history, a copy under out
// (named <id>-forged) with one marker of the service's running version
// placed 8 to 14 minutes before the alert's startsAt (the offset derived
// from the incident's id). The truth stays deny: releases.yaml still says
// when that version really started, and a marker that agrees with it by
// chance (the running version started within 5 minutes of it) is not written.
func ForgeDenies(corpus, out string) ([]Forged, error) {
	entries, err := os.ReadDir(corpus)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTransform, err)
	}
	var done []Forged
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		src := filepath.Join(corpus, e.Name())
		fg, ok, err := forgeOne(src, out)
		if err != nil {
			return nil, err
		}
		if ok {
			done = append(done, fg)
		}
	}
	return done, nil
}

// agreeing is the gate's default AGENTK_GATE_MARKER_TOLERANCE: a marker
// this close to the ledger's start of its version agrees with the ledger.
const agreeing = 5 * time.Minute

// forgedLead is how long before the alert the forged marker lies: 8 to 14
// minutes, the range (a marker inside the window before any onset
// the worlds and corpora place 1 to 12 minutes before the alert).
func forgedLead(id string) time.Duration {
	h := sha256.Sum256([]byte(id))
	return 8*time.Minute + time.Duration(binary.BigEndian.Uint64(h[:8])%361)*time.Second
}

func forgeOne(src, out string) (Forged, bool, error) {
	inc, err := incident.LoadManifest(src)
	if err != nil {
		return Forged{}, false, fmt.Errorf("%w: %v", ErrTransform, err)
	}
	rel := inc.Releases.Services[inc.Meta.Service]
	if inc.Meta.Expect.Verdict != contracts.VerdictDeny || len(rel) == 0 {
		return Forged{}, false, nil
	}
	var body struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	if err := json.Unmarshal(inc.AlertJSON, &body); err != nil || len(body.Alerts) == 0 {
		return Forged{}, false, fmt.Errorf("%w: %s: alert.json has no startsAt", ErrTransform, src)
	}
	cur := rel[len(rel)-1]
	at := body.Alerts[0].StartsAt.Add(-forgedLead(inc.Meta.ID)).UTC().Truncate(time.Second)
	if gap := at.Sub(cur.DeployedAt); gap.Abs() <= agreeing {
		// The running version really started then: a marker there is no
		// forgery but the ledger's own story.
		return Forged{}, false, nil
	}
	f, err := Read(src)
	if err != nil {
		return Forged{}, false, err
	}
	tr := ForgedMarker(inc.Meta.Service, cur.Version, at)
	g, err := tr.Apply(f)
	if err != nil {
		return Forged{}, false, err
	}
	dir, err := g.Write(out, inc.Meta.ID+"-"+tr.Name)
	if err != nil {
		return Forged{}, false, err
	}
	return Forged{Dir: dir, Source: src, Version: cur.Version, At: at, Started: cur.DeployedAt}, true, nil
}
