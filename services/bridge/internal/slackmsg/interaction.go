package slackmsg

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"agentk/contracts"
)

// ErrPayload is returned for an interaction payload the bridge cannot act on.
var ErrPayload = errors.New("slackmsg: unusable interaction payload")

// Click is one button press from a block_actions interaction.
type Click struct {
	UserID      string
	TeamID      string
	ResponseURL string
	ChannelID   string
	MessageTS   string
	DecisionID  string
	Digest      string
	Answer      string
	// ResolvedSeen is the resolve time an "Approve anyway (alert resolved)"
	// button carried: the human confirmed the rollback after it. Zero for
	// every other button.
	ResolvedSeen time.Time
	// FreezeService is set (and the answer fields empty) for a "Freeze
	// service" click.
	FreezeService string
	// Link is true for a click on a SigNoz link button: Slack opened the
	// link; there is nothing to do but acknowledge.
	Link bool
}

// ParseInteraction decodes the JSON of a block_actions payload (the form
// field "payload") into the one button press it carries. Any other shape is
// ErrPayload.
func ParseInteraction(payload []byte) (Click, error) {
	var ic slack.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		return Click{}, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if ic.Type != slack.InteractionTypeBlockActions {
		return Click{}, fmt.Errorf("%w: type %q", ErrPayload, ic.Type)
	}
	if ic.User.ID == "" {
		return Click{}, fmt.Errorf("%w: no user", ErrPayload)
	}
	acts := ic.ActionCallback.BlockActions
	if len(acts) != 1 {
		return Click{}, fmt.Errorf("%w: %d actions, want 1", ErrPayload, len(acts))
	}
	a := acts[0]
	if strings.HasPrefix(a.ActionID, ActionLinkPrefix) {
		return Click{UserID: ic.User.ID, TeamID: ic.Team.ID, Link: true}, nil
	}
	if a.ActionID == ActionFreeze {
		if !contracts.ValidFreezeScope(a.Value) || a.Value == contracts.FreezeGlobal {
			return Click{}, fmt.Errorf("%w: freeze value", ErrPayload)
		}
		return Click{UserID: ic.User.ID, TeamID: ic.Team.ID, ResponseURL: ic.ResponseURL,
			ChannelID: ic.Channel.ID, MessageTS: ic.Container.MessageTs, FreezeService: a.Value}, nil
	}
	c, err := answerClick(a.ActionID, a.Value)
	if err != nil {
		return Click{}, err
	}
	c.UserID, c.TeamID, c.ResponseURL = ic.User.ID, ic.Team.ID, ic.ResponseURL
	c.ChannelID, c.MessageTS = ic.Channel.ID, ic.Container.MessageTs
	if c.MessageTS == "" {
		c.MessageTS = ic.Message.Timestamp
	}
	return c, nil
}

// answerClick reads an answer button: its action id and its value,
// "decision|digest", or "decision|digest|resolve time" for the approve
// button of a message rewritten after the resolve.
func answerClick(actionID, value string) (Click, error) {
	var c Click
	switch actionID {
	case ActionApprove:
		c.Answer = contracts.AnswerApprove
	case ActionApproveResolved:
		c.Answer = contracts.AnswerApprove
		i := strings.LastIndexByte(value, '|')
		at, err := time.Parse(time.RFC3339Nano, value[i+1:])
		if i <= 0 || err != nil || at.IsZero() {
			return Click{}, fmt.Errorf("%w: resolve time in button value", ErrPayload)
		}
		c.ResolvedSeen, value = at, value[:i]
	case ActionDeny:
		c.Answer = contracts.AnswerDeny
	default:
		return Click{}, fmt.Errorf("%w: action %q", ErrPayload, actionID)
	}
	i := strings.LastIndexByte(value, '|')
	if i <= 0 || i == len(value)-1 {
		return Click{}, fmt.Errorf("%w: button value", ErrPayload)
	}
	c.DecisionID, c.Digest = value[:i], value[i+1:]
	return c, nil
}
